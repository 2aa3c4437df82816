import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { closedPort, startUpstream, type Upstream } from "../sources/http/upstream.js";
import { executeTool } from "../helpers/execute.js";

const CANARY_VAR = `TN_HTTP_CANARY_${process.pid}`;
const canary = `canary-${randomBytes(12).toString("hex")}`;

let up: Upstream;
let denied: Upstream;
let srv: TestServer;
let deadPort: number;

async function execute(name: string, args: Record<string, unknown> = {}) {
  const res = await executeTool(srv.url, name, { arguments: args });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  process.env[CANARY_VAR] = canary;
  up = await startUpstream();
  denied = await startUpstream("127.0.0.2");
  deadPort = await closedPort();
  srv = await startServer({
    config: {
      egress: { deny: ["127.0.0.2"] },
      http: [
        {
          name: "echo",
          method: "POST",
          url: `${up.url}/echo/{id}`,
          query: ["q"],
          headers: { Authorization: `Bearer \${${CANARY_VAR}}`, "X-Plain": "visible" },
        },
        { name: "form_post", method: "POST", url: `${up.url}/echo/form`, body: "form" },
        { name: "missing", url: `${up.url}/status/404`, description: "Always 404" },
        { name: "secret_error", url: `${up.url}/status/500`, headers: { "X-Key": `\${${CANARY_VAR}}` } },
        { name: "dead", url: `http://127.0.0.1:${deadPort}/x`, headers: { "X-Key": `\${${CANARY_VAR}}` } },
        { name: "slow", url: `${up.url}/slow`, timeout: 300 },
        { name: "denied", url: `${denied.url}/text` },
      ],
    },
  });
});
afterAll(async () => {
  await srv?.close();
  await up?.close();
  await denied?.close();
  delete process.env[CANARY_VAR];
});

describe("http tools over REST", () => {
  it("lists each declared tool with the default inputSchema, and status shows each", async () => {
    const tools = (await (await fetch(`${srv.url}/tools?source=http`)).json()) as { tools: { name: string; inputSchema: unknown }[] };
    expect(tools.tools.map((t) => t.name).sort()).toEqual(["dead", "denied", "echo", "form_post", "missing", "secret_error", "slow"]);
    expect(tools.tools.find((t) => t.name === "echo")?.inputSchema).toEqual({
      type: "object",
      properties: {
        id: { type: "string", description: "Fills {id} in the URL." },
        q: { type: "string", description: "Sent in the query string." },
      },
      required: ["id"],
    });
    const status = (await (await fetch(`${srv.url}/status`)).json()) as unknown;
    const text = JSON.stringify(status);
    for (const name of ["echo", "dead", "denied", "slow"]) expect(text).toContain(`"name":"${name}"`);
    expect(text).not.toContain(canary);
  });

  it("sends env headers, encoded placeholders, query and JSON body; the secret never shows", async () => {
    const r = await execute("echo", { id: "a b", q: "x", note: "hi" });
    expect(r.status).toBe(200);
    const seen = up.seen.find((s) => s.url.startsWith("/echo/a%20b"));
    expect(seen?.headers.authorization).toBe(`Bearer ${canary}`);
    expect(seen?.url).toBe("/echo/a%20b?q=x");
    expect(JSON.parse(seen?.body ?? "")).toEqual({ note: "hi" });
    // The upstream echoed the header back: the tool output redacts it.
    expect(r.body.output).toContain("Bearer [redacted]");
    expect(JSON.stringify(r.body)).not.toContain(canary);
  });

  it("form body mode", async () => {
    const r = await execute("form_post", { a: "1", b: "x y" });
    const echoed = JSON.parse(String(r.body.output)) as { body: string; headers: Record<string, string> };
    expect(echoed.body).toBe("a=1&b=x+y");
    expect(echoed.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  });

  it("non-2xx is a 200 with isError", async () => {
    const r = await execute("missing");
    expect(r).toMatchObject({ status: 200, body: { output: "HTTP 404: nope 404", isError: true, metadata: { status: 404 } } });
    const e = await execute("secret_error");
    expect(e.body).toMatchObject({ output: "HTTP 500: nope 500", isError: true });
  });

  it("a refused connection is 502 UPSTREAM_UNAVAILABLE", async () => {
    const r = await execute("dead");
    expect(r.status).toBe(502);
    expect(r.body).toMatchObject({
      code: "UPSTREAM_UNAVAILABLE",
      detail: `dead: cannot reach http://127.0.0.1:${deadPort}: connection refused (ECONNREFUSED)`,
    });
  });

  it("its own timeout is 504 TOOL_TIMEOUT", async () => {
    const r = await execute("slow");
    expect(r.status).toBe(504);
    expect(r.body).toMatchObject({ code: "TOOL_TIMEOUT" });
  });

  it("a deny rule on a loopback address refuses the upstream end to end", async () => {
    const before = denied.seen.length;
    const r = await execute("denied");
    expect(r.status).toBe(502);
    expect(r.body.detail).toBe(`denied: cannot reach ${denied.url}: egress to 127.0.0.2 refused: denied by egress.deny`);
    expect(denied.seen.length).toBe(before);
  });

  it("a client disconnect aborts the upstream request", async () => {
    const fresh = await startUpstream();
    const s2 = await startServer({ config: { http: [{ name: "hang", url: `${fresh.url}/slow` }] } });
    try {
      const port = Number(new URL(s2.url).port);
      const req = httpRequest({
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/tools/hang/execute",
        headers: { "content-type": "application/json" },
      });
      req.on("error", () => {});
      req.end(JSON.stringify({ arguments: {} }));
      await fresh.slowArrived;
      req.destroy();
      await fresh.slowClosed;
      await expect.poll(() => s2.logs.some((l) => l.tool === "hang" && l.statusCode === 499)).toBe(true);
    } finally {
      await s2.close();
      await fresh.close();
    }
  });

  it("never writes the secret to the log", () => {
    expect(srv.logText().length).toBeGreaterThan(0);
    expect(srv.logText()).not.toContain(canary);
    expect(srv.logs.some((l) => l.tool === "echo")).toBe(true);
  });
});
