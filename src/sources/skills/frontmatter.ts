import { isMap, isScalar, parseDocument } from "yaml";

/** A SKILL.md split into its frontmatter fields and its trimmed body. */
export interface ParsedSkill {
  name?: string;
  description?: string;
  body: string;
}

/** Why a SKILL.md could not be parsed. */
export interface FrontmatterError {
  error: string;
}

/**
 * Parses a SKILL.md: an optional `---`-fenced YAML frontmatter, then the body. The YAML goes
 * through the `yaml` package (block scalars, quoting and folding resolve as the spec says);
 * scalar values are turned into strings and trimmed so chomping differences never leak.
 * A file without a fence has no frontmatter (and so no name); a fence that never closes, YAML
 * that does not parse, or frontmatter that is not a mapping is an error.
 */
export function parseSkillFile(raw: string): ParsedSkill | FrontmatterError {
  // One newline convention, so a file saved on Windows renders like any other.
  const text = raw.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const lines = text.split("\n");
  if (lines[0]?.trimEnd() !== "---") return { body: text.trim() };

  const close = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
  if (close === -1) return { error: "frontmatter opened with --- is never closed" };

  const yaml = lines.slice(1, close).join("\n");
  const doc = parseDocument(yaml, { prettyErrors: false });
  const problem = doc.errors[0];
  if (problem) {
    // Count lines in the file, not in the frontmatter: the opening fence is line 1.
    const line = yaml.slice(0, problem.pos[0]).split("\n").length + 1;
    return { error: `invalid YAML at line ${line}: ${problem.message}` };
  }
  const contents = doc.contents;
  if (contents !== null && !isMap(contents) && !(isScalar(contents) && contents.value === null)) {
    return { error: "frontmatter is not a mapping of keys to values" };
  }

  let fields: Record<string, unknown> = {};
  try {
    if (isMap(contents)) fields = doc.toJS() as Record<string, unknown>;
  } catch (err) {
    // e.g. an alias bomb: the yaml package refuses to expand it.
    return { error: (err as Error).message };
  }
  return {
    name: scalarText(fields.name),
    description: scalarText(fields.description),
    body: lines
      .slice(close + 1)
      .join("\n")
      .trim(),
  };
}

/** The trimmed text of a scalar value; undefined for null, lists, maps and empty strings. */
function scalarText(value: unknown): string | undefined {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    const text = String(value).trim();
    return text === "" ? undefined : text;
  }
  return undefined;
}
