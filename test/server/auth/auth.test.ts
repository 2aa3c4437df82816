import { createHash } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../../helpers/server.js";
import { testTools } from "../../helpers/tools.js";

const ADMIN = "admin-key-0123456789abcdef";
const LIMITED = "limited-key-0123456789abcd";
let s: TestServer;

beforeAll(async () => {
  process.env.TOOLNEXUS_TEST_ADMIN_KEY = ADMIN;
  s = await startServer({
    config: {
      skills: [path.resolve(import.meta.dirname, "../../../../shared/conformance/skills/fixture")],
      auth: {
        apiKeys: [
          { id: "admin", key: "${TOOLNEXUS_TEST_ADMIN_KEY}" },
          { id: "limited", sha256: createHash("sha256").update(LIMITED).digest("hex"), tools: ["ech*", "divide"] },
        ],
      },
    },
    tools: testTools(),
  });
});
afterAll(() => s.close());

const call = (path: string, key?: string, init: RequestInit = {}, header = "authorization") =>
  fetch(`${s.url}${path}`, {
    ...init,
    headers: { ...(key ? { [header]: header === "authorization" ? `Bearer ${key}` : key } : {}), "content-type": "application/json" },
  });

describe("API keys", () => {
  it("401 UNAUTHORIZED without a key or with a wrong one, on every protected route", async () => {
    for (const path of ["/tools", "/tools/echo", "/status", "/skills", "/skills/prompt", "/openapi.json"]) {
      const res = await call(path);
      expect(res.status, path).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
      expect(await res.json()).toMatchObject({ code: "UNAUTHORIZED" });
      expect((await call(path, "wrong-key-0123456789abcdef")).status, path).toBe(401);
    }
    expect((await call("/tools/echo/execute", undefined, { method: "POST", body: "{}" })).status).toBe(401);
  });

  it("/healthz and /readyz stay open", async () => {
    expect((await call("/healthz")).status).toBe(200);
    expect((await call("/readyz")).status).toBe(200);
  });

  it("accepts the key as a Bearer token or as X-API-Key", async () => {
    expect((await call("/tools", ADMIN)).status).toBe(200);
    expect((await call("/tools", ADMIN, {}, "x-api-key")).status).toBe(200);
    expect((await call("/tools", LIMITED, {}, "x-api-key")).status).toBe(200);
  });

  it("a key with tool patterns sees only those tools in /tools, /tools/{name} and /openapi.json", async () => {
    const { tools } = (await (await call("/tools", LIMITED)).json()) as { tools: { name: string }[] };
    expect(tools.map((t) => t.name)).toEqual(["echo", "divide"]);
    expect((await call("/tools/slow", LIMITED)).status).toBe(404);
    expect((await call("/tools/echo", LIMITED)).status).toBe(200);
    const doc = (await (await call("/openapi.json", LIMITED)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/tools/") && !p.includes("{"))).toEqual([
      "/tools/echo/execute",
      "/tools/echo/executions",
      "/tools/divide/execute",
      "/tools/divide/executions",
    ]);
    const all = (await (await call("/tools", ADMIN)).json()) as { tools: unknown[] };
    expect(all.tools.length).toBe(8);
  });

  it("403 FORBIDDEN when the key may not use an existing tool; 404 when it does not exist", async () => {
    const body = JSON.stringify({ arguments: { ms: 1 } });
    const forbidden = await call("/tools/slow/execute", LIMITED, { method: "POST", body });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ code: "FORBIDDEN" });
    expect((await call("/tools/ghost/execute", LIMITED, { method: "POST", body })).status).toBe(404);
    expect(
      (await call("/tools/echo/execute", LIMITED, { method: "POST", body: JSON.stringify({ arguments: { text: "ok" } }) })).status,
    ).toBe(200);
  });

  it("the skills catalog is visible only to keys that may use the skill tool", async () => {
    const admin = (await (await call("/skills", ADMIN)).json()) as { skills: unknown[] };
    expect(admin.skills).toHaveLength(5);
    expect(await (await call("/skills/prompt", ADMIN)).text()).toContain("## Available Skills");
    expect(await (await call("/skills", LIMITED)).json()).toEqual({ skills: [], skipped: [] });
    expect(await (await call("/skills/prompt", LIMITED)).text()).toBe("No skills are currently available.");
  });

  it("logs the key id as caller, never the key", async () => {
    await call("/tools/echo/execute", ADMIN, { method: "POST", body: JSON.stringify({ arguments: { text: "who" } }) });
    expect(s.logs.some((l) => l.msg === "tool call" && l.caller === "admin")).toBe(true);
    expect(s.logText()).not.toContain(ADMIN);
    expect(s.logText()).not.toContain(LIMITED);
  });
});
