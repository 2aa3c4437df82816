import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer } from "../../../src/server/build-server.js";
import { pollUntil, submit } from "../../helpers/executions.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { testTools } from "../../helpers/tools.js";

const ADMIN = "admin-key-0123456789abcdef";
const TEAM_B = "team-b-key-0123456789abcdef";
const ECHO_ONLY = "echo-only-key-0123456789abcdef";
const admin = { authorization: `Bearer ${ADMIN}` };
const teamB = { authorization: `Bearer ${TEAM_B}` };
const echoOnly = { authorization: `Bearer ${ECHO_ONLY}` };
let s: TestServer;

beforeAll(async () => {
  s = await startServer({
    tools: testTools(),
    config: {
      bundles: {
        a: { tools: ["echo", "divide"], description: "team a" },
        b: { tools: ["slow", "confirm", "no_such_tool_*"] },
      },
      auth: {
        apiKeys: [
          { id: "admin", key: ADMIN, operator: true },
          { id: "team-b", key: TEAM_B, bundles: ["b"] },
          { id: "echo-only", key: ECHO_ONLY, tools: ["echo", "slow"] },
        ],
      },
    },
  });
});
afterAll(async () => {
  await s?.close();
});

async function names(path: string, headers: Record<string, string>): Promise<string[]> {
  const res = await fetch(`${s.url}${path}`, { headers });
  expect(res.status).toBe(200);
  return ((await res.json()) as { tools: { name: string }[] }).tools.map((t) => t.name).sort();
}

/** A v2 SDK client of one era: pinned to 2026-07-28 (server/discover), or the 2025 initialize handshake. */
async function mcp(bundle: string, headers: Record<string, string>, era: "2026" | "2025" = "2025"): Promise<Client> {
  const client = new Client(
    { name: "bundles-test", version: "1.0.0" },
    era === "2026" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : { supportedProtocolVersions: ["2025-11-25"] },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/bundles/${bundle}/mcp`), { requestInit: { headers } }));
  return client;
}

const execute = (tool: string, args: Record<string, unknown>, headers: Record<string, string>) =>
  fetch(`${s.url}/tools/${tool}/execute`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ arguments: args }),
  });

describe("bundles", () => {
  it.each(["2025", "2026"] as const)("an MCP client (%s era) on /bundles/a/mcp sees and calls only bundle a's tools", async (era) => {
    const client = await mcp("a", admin, era);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["divide", "echo"]);
    expect(await client.callTool({ name: "echo", arguments: { text: "in a" } })).toMatchObject({
      content: [{ type: "text", text: "in a" }],
    });
    await expect(client.callTool({ name: "slow", arguments: { ms: 1 } })).rejects.toMatchObject({ data: { code: "FORBIDDEN" } });
    await client.close();
  });

  it("GET /tools?bundle= and /openapi.json?bundle= show the bundle's tools, narrowed to the caller's", async () => {
    expect(await names("/tools?bundle=a", admin)).toEqual(["divide", "echo"]);
    expect(await names("/tools?bundle=b", admin)).toEqual(["confirm", "slow"]);
    // A bundle never widens: echo-only may use echo and slow, bundle a holds echo and divide.
    expect(await names("/tools?bundle=a", echoOnly)).toEqual(["echo"]);
    const doc = await (await fetch(`${s.url}/openapi.json?bundle=a`, { headers: admin })).text();
    expect(doc).toContain("/tools/echo/execute");
    expect(doc).not.toContain("/tools/slow/execute");
    // The portal's document (/docs/?bundle=a fetches ./json?bundle=a).
    const portal = await (await fetch(`${s.url}/docs/json?bundle=a`, { headers: admin })).text();
    expect(portal).toContain("/tools/echo/execute");
    expect(portal).not.toContain("/tools/slow/execute");
    expect((await fetch(`${s.url}/docs/json?bundle=a`, { headers: teamB })).status).toBe(403);
    // Without ?bundle= the full catalog, not a cached bundle view.
    expect(await names("/tools", admin)).toEqual(expect.arrayContaining(["echo", "slow", "explode"]));
  });

  it("a key granted bundle b cannot use a's tools through any route", async () => {
    expect(await names("/tools", teamB)).toEqual(["confirm", "slow"]);
    expect((await execute("echo", { text: "x" }, teamB)).status).toBe(403);
    expect((await execute("slow", { ms: 1 }, teamB)).status).toBe(200);
    expect((await submit(s.url, "echo", { arguments: { text: "x" } }, teamB)).status).toBe(403);
    const ok = await submit(s.url, "slow", { arguments: { ms: 1 } }, teamB);
    expect(ok.status).toBe(202);
    await pollUntil(s.url, ((await ok.json()) as { id: string }).id, ["succeeded"], { headers: teamB });

    const forbidden = await fetch(`${s.url}/tools?bundle=a`, { headers: teamB });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get("content-type")).toContain("application/problem+json");
    expect(await forbidden.json()).toMatchObject({ code: "FORBIDDEN", detail: 'This caller may not use bundle "a"' });
    expect((await fetch(`${s.url}/openapi.json?bundle=a`, { headers: teamB })).status).toBe(403);
    await expect(mcp("a", teamB)).rejects.toThrow(/403|may not use bundle/);

    const client = await mcp("b", teamB);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["confirm", "slow"]);
    await expect(client.callTool({ name: "echo", arguments: { text: "x" } })).rejects.toMatchObject({ data: { code: "FORBIDDEN" } });
    await client.close();
  });

  it("answers an unknown bundle 404 and a malformed name 400, as problem+json", async () => {
    const unknown = await fetch(`${s.url}/tools?bundle=zzz`, { headers: admin });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: "NOT_FOUND", detail: 'No bundle named "zzz"' });
    const odd = await fetch(`${s.url}/tools?bundle=${encodeURIComponent("a/../b")}`, { headers: admin });
    expect(odd.status).toBe(400);
    expect(await odd.json()).toMatchObject({ code: "INVALID_REQUEST" });
    expect((await fetch(`${s.url}/tools?bundle=__proto__`, { headers: admin })).status).toBe(404);
    const mcpUnknown = await fetch(`${s.url}/bundles/zzz/mcp`, {
      method: "POST",
      headers: { ...admin, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcpUnknown.status).toBe(404);
    expect(await mcpUnknown.json()).toMatchObject({ jsonrpc: "2.0", error: { data: { code: "NOT_FOUND" } } });
  });

  it("warns at load about a bundle glob that matches no tool", () => {
    expect(s.logs.find((l) => l.msg?.toString().startsWith("bundle glob matches no tool"))).toMatchObject({
      bundle: "b",
      glob: "no_such_tool_*",
    });
  });

  it("refuses a config with an odd bundle name or a grant of an undefined bundle", async () => {
    await expect(buildServer({ logger: false, config: { bundles: { "bad name!": { tools: ["x"] } } } })).rejects.toThrow(
      /\/bundles\/bad name! is not a bundle name/,
    );
    await expect(
      buildServer({
        logger: false,
        config: { bundles: { a: { tools: ["x"] } }, auth: { apiKeys: [{ id: "k", key: ADMIN, bundles: ["nope"] }] } },
      }),
    ).rejects.toThrow(/\/auth\/apiKeys\/0\/bundles\/0 names no bundle/);
  });
});
