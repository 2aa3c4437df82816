import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeTool } from "../../helpers/execute.js";
import { jwtConfig, startIdp, type TestIdp, type TestKey } from "../../helpers/jwks.js";
import { rawRequest } from "../../helpers/raw-http.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { tool } from "../../helpers/static-source.js";

const TOOLS = ["alpha_one", "alpha_two", "beta_one", "shared_x"];
const OPS_KEY = "ops-key-0123456789abcdef";
const USER_KEY = "user-key-0123456789abcdef";
let idp: TestIdp;
let key: TestKey;
let s: TestServer;

beforeAll(async () => {
  idp = await startIdp();
  key = await idp.key("k1");
  idp.publish([key]);
  s = await startServer({
    config: {
      auth: {
        apiKeys: [
          { id: "ops-bot", key: OPS_KEY, operator: true },
          { id: "user-bot", key: USER_KEY, tools: ["beta_*"] },
        ],
        jwt: jwtConfig(idp),
        policies: [
          { id: "eng", groups: ["eng"], tools: ["alpha_*", "shared_*"] },
          { id: "ops", groups: ["ops"], tools: ["beta_*", "shared_x"], operator: true },
          { id: "carol-read", subjects: ["carol"], scopes: ["tools:read"], tools: ["alpha_one"] },
        ],
      },
    },
    tools: TOOLS.map((n) => tool(n, "native")),
  });
});
afterAll(async () => {
  await s.close();
  await idp.close();
});

/** Every route a caller may touch, seen by one caller: what it lists, reads, runs, and its operator routes. */
async function view(authorization: string) {
  const headers = { authorization };
  const listed = ((await (await fetch(`${s.url}/tools`, { headers })).json()) as { tools: { name: string }[] }).tools.map((t) => t.name);
  const readable: string[] = [];
  const runnable: string[] = [];
  for (const name of TOOLS) {
    const one = await fetch(`${s.url}/tools/${name}`, { headers });
    if (one.status === 200) readable.push(name);
    else expect(one.status).toBe(404);
    const run = await executeTool(s.url, name, {}, headers);
    if (run.status === 200) runnable.push(name);
    else expect(await run.json()).toMatchObject({ status: 403, code: "FORBIDDEN" });
  }
  const doc = (await (await fetch(`${s.url}/openapi.json`, { headers })).json()) as { paths: Record<string, unknown> };
  const documented = TOOLS.filter((n) => `/tools/${n}/execute` in doc.paths);
  const status = (await fetch(`${s.url}/status`, { headers })).status;
  const metrics = (await fetch(`${s.url}/metrics`, { headers })).status;
  return { listed, readable, runnable, documented, status, metrics };
}

async function bearer(claims: Record<string, unknown>): Promise<string> {
  return `Bearer ${await idp.sign(claims, key)}`;
}

function same(tools: string[], operator: boolean) {
  return {
    listed: tools,
    readable: tools,
    runnable: tools,
    documented: tools,
    status: operator ? 200 : 403,
    metrics: operator ? 200 : 403,
  };
}

describe("policy matrix: GET /tools, /tools/{name}, execute, /openapi.json, /status, /metrics", () => {
  it("the union of matching policies, applied identically on every route", async () => {
    expect(await view(await bearer({ sub: "erin", groups: ["eng"] }))).toEqual(same(["alpha_one", "alpha_two", "shared_x"], false));
    expect(await view(await bearer({ sub: "oscar", groups: ["ops"] }))).toEqual(same(["beta_one", "shared_x"], true));
    expect(await view(await bearer({ sub: "bea", groups: ["eng", "ops"] }))).toEqual(same(TOOLS, true));
    expect(await view(await bearer({ sub: "nobody", groups: ["sales"] }))).toEqual(same([], false));
  });

  it("every criterion of a policy must match: subject and scope (scope string or scp array)", async () => {
    expect(await view(await bearer({ sub: "carol", scope: "openid tools:read" }))).toEqual(same(["alpha_one"], false));
    expect(await view(await bearer({ sub: "carol", scp: ["tools:read"] }))).toEqual(same(["alpha_one"], false));
    expect(await view(await bearer({ sub: "carol", scope: "openid" }))).toEqual(same([], false));
    expect(await view(await bearer({ sub: "dave", scope: "tools:read" }))).toEqual(same([], false));
  });

  it("API keys keep their own tools; only an operator key reads /status and /metrics", async () => {
    expect(await view(`Bearer ${OPS_KEY}`)).toEqual(same(TOOLS, true));
    expect(await view(`Bearer ${USER_KEY}`)).toEqual(same(["beta_one"], false));
  });

  it("a fragment or query on an operator route changes nothing (the router ignores both)", async () => {
    for (const target of ["/status#x", "/metrics#x", "/status?x=1", "/metrics?x#y"]) {
      const res = await rawRequest(
        s.url,
        `GET ${target} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${USER_KEY}\r\nConnection: close\r\n\r\n`,
      );
      expect(res.status, target).toBe(403);
    }
  });

  it("the audit line names the principal and the policy that allowed the call", async () => {
    const before = s.logs.length;
    await executeTool(s.url, "shared_x", {}, { authorization: await bearer({ sub: "oscar", groups: ["ops"] }) });
    await executeTool(s.url, "beta_one", {}, { authorization: `Bearer ${USER_KEY}` });
    await executeTool(s.url, "beta_one", {}, { authorization: await bearer({ sub: "erin", groups: ["eng"] }) });
    const lines = s.logs.slice(before).filter((l) => l.msg === "tool call");
    expect(lines[0]).toMatchObject({ tool: "shared_x", caller: "oscar", auth: "jwt", policy: "ops", statusCode: 200 });
    expect(lines[1]).toMatchObject({ tool: "beta_one", caller: "user-bot", auth: "apiKey", statusCode: 200 });
    expect(lines[1]).not.toHaveProperty("policy");
    expect(lines[2]).toMatchObject({ tool: "beta_one", caller: "erin", auth: "jwt", outcome: "rejected", statusCode: 403 });
    expect(lines[2]).not.toHaveProperty("policy");
  });
});
