import { mkdtemp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../../helpers/server.js";
import { errorOf, namesOf, result, rpc, type Json } from "../../helpers/surface-rpc.js";
import { eventually } from "../../helpers/wait.js";

const MUTABLE = fileURLToPath(new URL("../../fixtures/mcp/mutable-surface-server.mjs", import.meta.url));
const OPS = "ops-key-0123456789abcdef";
const TEAM = "team-key-0123456789abcdef";
const auth = {
  apiKeys: [
    { id: "ops", key: OPS, operator: true },
    { id: "team", key: TEAM },
  ],
};
const TEMPLATE = "ms+file:///docs/{name}";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(pinning: Json): Promise<TestServer> {
  const s = await startServer({ config: { auth, pinning, mcpServers: { ms: { command: [process.execPath, MUTABLE] } } } });
  servers.push(s);
  return s;
}

type Pending = { tool: string; subject?: string; kind: string; withheld: boolean; changes: { path: string; change: string }[] };
async function pending(s: TestServer): Promise<Pending[]> {
  const body = (await (await fetch(`${s.url}/admin/pins`, { headers: { "x-api-key": OPS } })).json()) as { pending: Pending[] };
  return body.pending;
}

async function tool(s: TestServer, name: string): Promise<void> {
  const res = await fetch(`${s.url}/tools/${name}/execute`, {
    method: "POST",
    headers: { "x-api-key": TEAM, "content-type": "application/json" },
    body: "{}",
  });
  expect(res.status).toBe(200);
}

describe("pinning of prompts and resource templates", () => {
  it("withholds a changed prompt and template from every list, get and read until an operator approves each", async () => {
    const file = path.join(await mkdtemp(path.join(os.tmpdir(), "toolnexus-pins-")), "pins.json");
    const s = await start({ mode: "block", file });
    const mcp = `${s.url}/mcp`;
    await eventually(async () => {
      const pins = JSON.parse(await readFile(file, "utf8").catch(() => "{}")).pins ?? {};
      return pins["prompt:ms_review"] && pins[`resourceTemplate:${TEMPLATE}`];
    });
    expect(namesOf(await rpc(mcp, "prompts/list", {}, "2025", TEAM), "prompts", "name")).toEqual(["ms_review"]);

    await tool(s, "ms_mutate_surface");
    const held = await eventually(async () => {
      const p = await pending(s);
      return p.length === 2 ? p : undefined;
    });
    expect(held).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ tool: "prompt:ms_review", subject: "prompt", kind: "changed", withheld: true }),
        expect.objectContaining({ tool: `resourceTemplate:${TEMPLATE}`, subject: "resourceTemplate", kind: "changed", withheld: true }),
      ]),
    );
    expect(held.find((p) => p.subject === "resourceTemplate")?.changes).toEqual([
      expect.objectContaining({ path: "description", change: "changed" }),
    ]);
    expect(held.find((p) => p.subject === "prompt")?.changes).toEqual([expect.objectContaining({ path: "arguments", change: "changed" })]);

    for (const era of ["2025", "2026"] as const) {
      expect(namesOf(await rpc(mcp, "prompts/list", {}, era, TEAM), "prompts", "name")).toEqual([]);
      expect(namesOf(await rpc(mcp, "resources/templates/list", {}, era, TEAM), "resourceTemplates", "uriTemplate")).toEqual([]);
      const get = await rpc(mcp, "prompts/get", { name: "ms_review", arguments: { text: "x", secret: "y" } }, era, TEAM);
      expect(errorOf(get).code).toBe(-32602);
      expect(errorOf(await rpc(mcp, "resources/read", { uri: "ms+file:///docs/a" }, era, TEAM)).code).toBe(-32602);
    }

    const approve = (key: string) =>
      fetch(`${s.url}/admin/pins/${encodeURIComponent(key)}/approve`, { method: "POST", headers: { "x-api-key": OPS } });
    expect((await approve("prompt:ms_review")).status).toBe(200);
    expect(namesOf(await rpc(mcp, "prompts/list", {}, "2026", TEAM), "prompts", "name")).toEqual(["ms_review"]);
    expect(errorOf(await rpc(mcp, "resources/read", { uri: "ms+file:///docs/a" }, "2026", TEAM)).code).toBe(-32602);
    const approved = await approve(`resourceTemplate:${TEMPLATE}`);
    expect(approved.status).toBe(200);
    expect(((await approved.json()) as Json).tool).toBe(`resourceTemplate:${TEMPLATE}`);
    const read = result(await rpc(mcp, "resources/read", { uri: "ms+file:///docs/a" }, "2026", TEAM));
    expect((read.contents as Json[])[0]?.text).toBe("doc a");
    expect(await pending(s)).toEqual([]);
    // A key that names nothing served is refused, a team key may not approve.
    expect((await approve("prompt:ms_nothing")).status).toBe(404);
    const denied = await fetch(`${s.url}/admin/pins/prompt%3Ams_review/approve`, { method: "POST", headers: { "x-api-key": TEAM } });
    expect(denied.status).toBe(403);
  });

  it("only flags a changed prompt in warn mode, and keeps serving it", async () => {
    const s = await start({ mode: "warn" });
    const mcp = `${s.url}/mcp`;
    await eventually(async () => (namesOf(await rpc(mcp, "prompts/list", {}, "2025", TEAM), "prompts", "name").length ? true : undefined));
    await tool(s, "ms_mutate_surface");
    const p = await eventually(async () => (await pending(s)).find((x) => x.tool === "prompt:ms_review"));
    expect(p).toMatchObject({ withheld: false, kind: "changed" });
    expect(namesOf(await rpc(mcp, "prompts/list", {}, "2025", TEAM), "prompts", "name")).toEqual(["ms_review"]);
    expect(s.logs.some((l) => l.msg === "pinning: tool definition changed" && l.tool === "prompt:ms_review")).toBe(true);
  });
});
