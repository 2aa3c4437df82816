import { describe, expect, it } from "vitest";
import { normalizeConfig } from "../../src/config/load.js";
import { issuesOf } from "../helpers/config-issues.js";
import { collectServers } from "../../src/sources/mcp/config/collect-servers.js";

const jwt = { issuer: "https://idp.example/", audience: "toolnexus", jwksUri: "https://idp.example/jwks.json" };

describe("auth, forwardAuth and telemetry config", () => {
  it("accepts jwt, policies, operator keys, forwardAuth and telemetry, with defaults", async () => {
    const { config } = await normalizeConfig({
      auth: { apiKeys: [{ id: "ops", key: "0123456789abcdef0", operator: true }], jwt, policies: [{ groups: ["eng"], tools: ["*"] }] },
      http: [{ name: "h", url: "http://127.0.0.1:1/x", forwardAuth: true }],
      mcpServers: { r: { url: "http://127.0.0.1:1/mcp", forwardAuth: true } },
      telemetry: { otlp: { endpoint: "http://127.0.0.1:4318", protocol: "http/json" } },
    });
    expect(config.auth?.jwt).toMatchObject({ clockTolerance: 30, requireExp: true, groupsClaim: "groups", jwksTimeoutMs: 3000 });
    expect(config.auth?.jwt?.maxTokenAgeSeconds).toBeUndefined();
  });

  it("refuses HMAC and none algorithms, policies without jwt, repeated policy ids", async () => {
    expect(await issuesOf({ auth: { jwt: { ...jwt, algorithms: ["HS256"] } } })).toContain("/auth/jwt/algorithms/0");
    expect(await issuesOf({ auth: { jwt: { ...jwt, algorithms: ["none"] } } })).toContain("/auth/jwt/algorithms/0");
    expect(await issuesOf({ auth: { policies: [{ tools: ["*"] }] } })).toContain("configure auth.jwt");
    expect(
      await issuesOf({
        auth: {
          jwt,
          policies: [
            { id: "a", tools: [] },
            { id: "a", tools: [] },
          ],
        },
      }),
    ).toContain("/auth/policies/1/id");
  });

  it("refuses forwardAuth on a local MCP server", async () => {
    const loaded = await normalizeConfig({ mcpServers: { local: { command: "node", forwardAuth: true } } });
    expect(collectServers(loaded)).toEqual([{ name: "local", error: expect.stringContaining("forwardAuth") }]);
  });

  it("refuses runAs on a remote MCP server", async () => {
    const loaded = await normalizeConfig({ mcpServers: { remote: { url: "http://127.0.0.1:1/mcp", runAs: { uid: 65534, gid: 65534 } } } });
    expect(collectServers(loaded)).toEqual([
      { name: "remote", error: expect.stringContaining("runAs, which only a local server can use") },
    ]);
  });
});
