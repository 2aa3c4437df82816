/**
 * The runnable examples of a Markdown page: fenced blocks whose info string names a group,
 * e.g. ```` ```sh doctest=python once ````, ```` ```go doctest=go file=main.go ```` or
 * ```` ```text doctest=go output ````. Markdown renderers read only the first word (the
 * language), so the page shows them as ordinary code.
 */
export interface Snippet {
  /** Where it is, for failure messages: `docs/clients.md:42`. */
  where: string;
  lang: string;
  group: string;
  /** Written to this file instead of being run. */
  file?: string;
  /** Run on the first pass only (installs, `go mod init`). */
  once: boolean;
  /** What the block before it prints. */
  output: boolean;
  text: string;
}

const FENCE = /^(\s*)```(\S*)(.*)$/;

/** One fenced block of a page: its language, the words after it, its text. */
export interface Block {
  where: string;
  lang: string;
  words: string[];
  text: string;
}

/** Every fenced block of `markdown`, its fence's indentation stripped from each line. */
export function blocksOf(markdown: string, name: string): Block[] {
  const lines = markdown.split("\n");
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? "");
    if (!open) continue;
    const [, indent = "", lang = "", info = ""] = open;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && (lines[i] ?? "").trim() !== "```"; i++) body.push((lines[i] ?? "").slice(indent.length));
    if (i >= lines.length) throw new Error(`${name}:${start + 1}: unclosed code block`);
    out.push({ where: `${name}:${start + 1}`, lang, words: info.trim().split(/\s+/).filter(Boolean), text: `${body.join("\n")}\n` });
  }
  return out;
}

const attribute = (words: readonly string[], key: string): string | undefined =>
  words.find((w) => w.startsWith(`${key}=`))?.slice(key.length + 1);

/** Every `doctest=` block of `markdown`, in page order. */
export function snippetsOf(markdown: string, name: string): Snippet[] {
  return blocksOf(markdown, name).flatMap(({ where, lang, words, text }) => {
    const group = attribute(words, "doctest");
    if (group === undefined) return [];
    const file = attribute(words, "file");
    return [{ where, lang, group, ...(file ? { file } : {}), once: words.includes("once"), output: words.includes("output"), text }];
  });
}

/** A block marked `excerpt=PATH`: a verbatim part of that repository file (a doc's code example). */
export interface Excerpt {
  where: string;
  path: string;
  text: string;
}

/** Every `excerpt=` block of `markdown`, in page order. */
export function excerptsOf(markdown: string, name: string): Excerpt[] {
  return blocksOf(markdown, name).flatMap((b) => {
    const path = attribute(b.words, "excerpt");
    return path === undefined ? [] : [{ where: b.where, path, text: b.text }];
  });
}

/** One group as one bash script, with a marker on stdout before each block it runs. */
export interface GroupScript {
  script: string;
  /** For each marker number, the output it must print (when the page says). */
  expected: Map<number, { text: string; where: string }>;
  /** For each marker number, where its block is. */
  blocks: Map<number, string>;
}

/** Marker line that starts the output of block `n`. */
export const marker = (n: number): string => `@@doctest-block-${n}@@`;

/**
 * The script of one group's blocks: files are written with quoted heredocs, shell blocks run
 * as they are, `once` blocks only when `first`. `url` replaces the documented
 * `http://127.0.0.1:8080` (the test server listens on a free port instead).
 */
export function groupScript(snippets: readonly Snippet[], opts: { first: boolean; url: string }): GroupScript {
  const parts = ["set -eo pipefail"];
  const expected = new Map<number, { text: string; where: string }>();
  const blocks = new Map<number, string>();
  let last: number | undefined;
  let n = 0;
  for (const s of snippets) {
    const text = s.text.replaceAll("http://127.0.0.1:8080", opts.url);
    if (s.output) {
      if (last === undefined) throw new Error(`${s.where}: an output block must follow the block that prints it`);
      expected.set(last, { text, where: s.where });
      continue;
    }
    if (s.once && !opts.first) {
      last = undefined;
      continue;
    }
    if (s.file) {
      if (text.includes("\nDOCTEST_EOF\n")) throw new Error(`${s.where}: holds the heredoc delimiter`);
      parts.push(`cat > '${s.file}' <<'DOCTEST_EOF'\n${text}DOCTEST_EOF`);
      last = undefined;
      continue;
    }
    if (s.lang !== "sh" && s.lang !== "bash") throw new Error(`${s.where}: a ${s.lang} block needs file=NAME to be run`);
    n++;
    blocks.set(n, s.where);
    parts.push(`echo '${marker(n)}'`, text);
    last = n;
  }
  return { script: `${parts.join("\n")}\n`, expected, blocks };
}

/** What each block printed, by marker number. */
export function outputsOf(stdout: string): Map<number, string> {
  const out = new Map<number, string>();
  const re = /^@@doctest-block-(\d+)@@$/gm;
  const hits = [...stdout.matchAll(re)];
  hits.forEach((m, i) => {
    const from = (m.index ?? 0) + m[0].length + 1;
    const to = hits[i + 1]?.index ?? stdout.length;
    out.set(Number(m[1]), stdout.slice(from, to));
  });
  return out;
}
