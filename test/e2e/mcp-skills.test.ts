import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServeProcess, type ServeProcess } from "../helpers/serve-process.js";

const root = path.resolve(import.meta.dirname, "../..");
// The shared conformance fixture, read in place (nothing here writes).
const fixture = path.resolve(root, "../shared/conformance/skills/fixture");
const MODERN = "2026-07-28";
const SKILLS = "io.modelcontextprotocol/skills";
const KEYS = { skilled: "skilled-key-0123456789abcdef", toolsOnly: "tools-only-key-0123456789ab" };
type Json = Record<string, unknown>;

/** One 2026-07-28 JSON-RPC request to `/mcp` as `key`; the JSON-RPC response body. */
async function rpc(serve: ServeProcess, key: string, method: string, params: Json = {}): Promise<Json> {
  const res = await fetch(`${serve.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(typeof params.uri === "string" ? { "mcp-name": params.uri } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientInfo": { name: "skills-test", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  return (await res.json()) as Json;
}

describe("the skills catalog through the MCP skills extension (SEP-2640) on /mcp", () => {
  let serve: ServeProcess;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "toolnexus-mcp-skills-"));
    const config = [
      `skills: [${JSON.stringify(fixture)}]`,
      "auth:",
      "  apiKeys:",
      `    - { id: skilled, key: ${KEYS.skilled} }`,
      `    - { id: tools-only, key: ${KEYS.toolsOnly}, tools: ["nothing-here"] }`,
    ].join("\n");
    await writeFile(path.join(dir, "toolnexus.yaml"), config);
    serve = await startServeProcess(dir);
  });
  afterAll(async () => {
    await serve?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("declares the extension (with resources) and lists each skill with every file's digest", async () => {
    const discover = (await rpc(serve, KEYS.skilled, "server/discover")).result as { capabilities: Json };
    expect(discover.capabilities).toHaveProperty(["extensions", SKILLS]);
    expect(discover.capabilities).toHaveProperty("resources");
    const list = (await rpc(serve, KEYS.skilled, "skills/list")).result as { skills: { uri: string; resources: Json[] }[] };
    const hello = list.skills.find((s) => s.uri === "skill://hello-world/SKILL.md");
    expect(hello).toMatchObject({ frontmatter: { name: "hello-world" } });
    expect(hello?.resources.map((r) => r.uri)).toEqual(["skill://hello-world/SKILL.md", "skill://hello-world/scripts/greet.sh"]);
    for (const r of hello?.resources ?? []) expect(r.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    // A name outside the extension's rules stays with the skill tool only.
    expect(list.skills.map((s) => s.uri)).not.toContain("skill://café-menu/SKILL.md");
    const rest = (await (await fetch(`${serve.url}/skills`, { headers: { authorization: `Bearer ${KEYS.skilled}` } })).json()) as {
      skills: { name: string }[];
    };
    expect(rest.skills.map((s) => s.name)).toContain("café-menu");
  });

  it("reads a skill's files through resources/read, and refuses an unknown skill with -32602", async () => {
    const read = (await rpc(serve, KEYS.skilled, "resources/read", { uri: "skill://hello-world/SKILL.md" })).result as {
      contents: { text?: string; mimeType?: string }[];
    };
    expect(read.contents[0]?.mimeType).toBe("text/markdown");
    expect(read.contents[0]?.text).toMatch(/^---\nname: hello-world/);
    const get = (await rpc(serve, KEYS.skilled, "skills/get", { uri: "skill://hello-world/SKILL.md" })).result as Json;
    expect(get).toMatchObject({ skill: { uri: "skill://hello-world/SKILL.md" } });
    const unknown = await rpc(serve, KEYS.skilled, "skills/get", { uri: "skill://no-such-skill/SKILL.md" });
    expect(unknown).toMatchObject({ error: { code: -32602 } });
  });

  it("serves no skills to a key that may not use the skill tool", async () => {
    const discover = (await rpc(serve, KEYS.toolsOnly, "server/discover")).result as { capabilities: Json };
    expect(discover.capabilities).not.toHaveProperty(["extensions", SKILLS]);
    expect(await rpc(serve, KEYS.toolsOnly, "skills/list")).toMatchObject({ error: { code: -32601 } });
  });
});
