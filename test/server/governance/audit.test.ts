import { readFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer } from "../../../src/server/build-server.js";
import { pollUntil, submit } from "../../helpers/executions.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { streamExecute } from "../../helpers/sse.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { testTools } from "../../helpers/tools.js";

// A secret the config expands from the environment: it is also the API key callers present.
const SECRET = `audit-secret-${Math.random().toString(36).slice(2)}-0123456789`;
let s: TestServer;
let file = "";
const auth = { authorization: `Bearer ${SECRET}` };

function lines(): Record<string, unknown>[] {
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

beforeAll(async () => {
  process.env.TOOLNEXUS_AUDIT_SECRET = SECRET;
  // tempDir removes its directory after each test: this one is made by hand for the whole file.
  const { mkdtemp } = await import("node:fs/promises");
  const os = await import("node:os");
  file = path.join(await mkdtemp(path.join(os.tmpdir(), "toolnexus-audit-")), "audit.log");
  s = await startServer({
    tools: testTools(),
    config: {
      auth: { apiKeys: [{ id: "team-a", key: "${TOOLNEXUS_AUDIT_SECRET}", operator: true }] },
      audit: { sink: "file", path: file, arguments: "full" },
    },
  });
});
afterAll(async () => {
  await s?.close();
});

describe("the audit trail", () => {
  it("writes exactly one line per call on every HTTP transport, with its fields and no configured secret", async () => {
    const rest = await fetch(`${s.url}/tools/echo/execute`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", "x-request-id": "audit-rest-1" },
      body: JSON.stringify({ arguments: { text: SECRET } }),
    });
    expect(rest.status).toBe(200);

    const sse = await streamExecute(s.url, "echo", { arguments: { text: "over sse" } }, { ...auth, "x-request-id": "audit-sse-1" });
    await sse.done;

    const submitted = await submit(s.url, "echo", { arguments: { text: "as an execution" } }, auth);
    expect(submitted.status).toBe(202);
    const { id } = (await submitted.json()) as { id: string };
    await pollUntil(s.url, id, ["succeeded"], { headers: auth });

    const client = new Client({ name: "audit-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: auth } }));
    await client.callTool({ name: "echo", arguments: { text: "over mcp" } });
    await client.close();

    const forbidden = await fetch(`${s.url}/tools/nope/execute`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: "{}",
    });
    expect(forbidden.status).toBe(404);

    const all = lines();
    expect(all.map((l) => l.transport)).toEqual(["rest", "sse", "execution", "mcp", "rest"]);
    for (const l of all) {
      expect(l).toMatchObject({ type: "audit", principal: "team-a", auth: "apiKey" });
      expect(typeof l.time).toBe("string");
      expect(typeof l.requestId).toBe("string");
      expect(l.argumentsDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(typeof l.durationMs).toBe("number");
    }
    expect(all[0]).toMatchObject({
      requestId: "audit-rest-1",
      tool: "echo",
      source: "native",
      outcome: "ok",
      status: 200,
      arguments: { text: "[redacted]" },
    });
    expect(all[1]).toMatchObject({ requestId: "audit-sse-1", tool: "echo", outcome: "ok", arguments: { text: "over sse" } });
    expect(all[2]).toMatchObject({ tool: "echo", outcome: "ok", arguments: { text: "as an execution" } });
    expect(all[3]).toMatchObject({ tool: "echo", outcome: "ok", arguments: { text: "over mcp" } });
    expect(all[4]).toMatchObject({ tool: "nope", outcome: "rejected", status: 404 });
    expect(readFileSync(file, "utf8")).not.toContain(SECRET);
    // The debug log keeps its own line: the audit trail is apart from it.
    expect(s.logText()).not.toContain('"type":"audit"');
  });

  it("refuses to start when the audit file cannot be opened", async () => {
    const dir = await tempDir();
    await expect(
      buildServer({ logger: false, config: { audit: { sink: "file", path: path.join(dir, "missing/dir/audit.log") } } }),
    ).rejects.toThrow(/audit\.path/);
  });

  it("rejects sink: file without a path as a config error", async () => {
    await expect(buildServer({ logger: false, config: { audit: { sink: "file" } } })).rejects.toThrow(/audit\/path/);
  });
});
