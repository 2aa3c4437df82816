import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { SKILL_LIMITS, SkillsExtension, skillEntry, type Skill, type SkillSource } from "@modelcontextprotocol/server/ext/skills";
import type { SkillInfo } from "../../../core/source.js";

/** One served skill: its entry (what skills/list shows) and where its files are. */
interface Served {
  entry: Skill;
  dir: string;
  /** Resource URI → path relative to `dir`: only these files are ever read. */
  files: Map<string, string>;
}

const BASE = "skill://";

/**
 * The skills catalog through the MCP skills extension (SEP-2640): `skills/list`, `skills/get`
 * and `resources/read` of `skill://<name>/<file>`, beside the `skill` tool and the prompt. One
 * extension per set of skills (a reload makes another); the entries (each file's digest and
 * size) are built on the first request that asks, then kept. A skill whose name or files break
 * the extension's rules (names of lowercase letters, digits and hyphens; at most 512 files,
 * 16 MiB) is left out of it, and still served by the tool.
 */
export class McpSkills {
  // One extension per toolkit: a reload's new toolkit gets a new one, the old one goes with it.
  private readonly built = new WeakMap<object, SkillsExtension>();

  /** The extension serving the skills of `toolkit` (built once per toolkit); `warn` hears what it leaves out. */
  extension(toolkit: { skills(): SkillInfo[] }, warn: (message: string) => void): SkillsExtension {
    const known = this.built.get(toolkit);
    if (known) return known;
    const skills = toolkit.skills();
    let served: Promise<Map<string, Served>> | undefined;
    const all = () => (served ??= serve(skills, warn));
    const source: SkillSource = {
      async list() {
        return { skills: [...(await all()).values()].map((s) => s.entry) };
      },
      async get(uri) {
        return (await all()).get(uri)?.entry;
      },
      async read(uri) {
        for (const s of (await all()).values()) {
          const rel = s.files.get(uri);
          if (rel !== undefined) return contentOf(rel, new Uint8Array(await readFile(path.join(s.dir, rel))));
        }
        return undefined;
      },
    };
    const extension = new SkillsExtension({ source, baseUri: BASE, onWarning: (w) => warn(`${w.path}: ${w.message}`) });
    this.built.set(toolkit, extension);
    return extension;
  }
}

async function serve(skills: readonly SkillInfo[], warn: (message: string) => void): Promise<Map<string, Served>> {
  const out = new Map<string, Served>();
  for (const skill of skills) {
    const dir = path.dirname(skill.location);
    try {
      const rels = await filesOf(dir);
      const contents: Record<string, Uint8Array> = {};
      let bytes = 0;
      for (const rel of rels) {
        const data = new Uint8Array(await readFile(path.join(dir, rel)));
        bytes += data.byteLength;
        if (bytes > SKILL_LIMITS.bytes) throw new Error(`more than ${SKILL_LIMITS.bytes} bytes`);
        contents[rel] = data;
      }
      const entry = await skillEntry(skill.name, contents, { baseUri: BASE });
      const files = new Map(rels.map((rel) => [`${BASE}${skill.name}/${rel}`, rel]));
      out.set(entry.uri, { entry, dir, files });
    } catch (err) {
      warn(`skill "${skill.name}" is not served through the MCP skills extension: ${(err as Error).message}`);
    }
  }
  return out;
}

// Regular files under `dir`, as /-separated relative paths; hidden entries and links are left out.
async function filesOf(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    for (const d of await readdir(path.join(dir, rel), { withFileTypes: true })) {
      if (d.name.startsWith(".")) continue;
      const child = rel === "" ? d.name : `${rel}/${d.name}`;
      if (d.isDirectory()) await walk(child);
      else if (d.isFile()) found.push(child);
      if (found.length > SKILL_LIMITS.files) throw new Error(`more than ${SKILL_LIMITS.files} files`);
    }
  };
  await walk("");
  return found.sort();
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

// Text goes out as text (SKILL.md as Markdown, as clients expect to read it); anything else as bytes.
function contentOf(rel: string, bytes: Uint8Array): { text: string; mimeType: string } | { bytes: Uint8Array } {
  try {
    return { text: utf8.decode(bytes), mimeType: rel.endsWith(".md") ? "text/markdown" : "text/plain" };
  } catch {
    return { bytes };
  }
}
