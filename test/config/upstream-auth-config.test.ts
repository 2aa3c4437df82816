import { describe, expect, it } from "vitest";
import { normalizeConfig } from "../../src/config/load.js";
import { issuesOf } from "../helpers/config-issues.js";
import { passthroughSources, upstreamAuthOf } from "../../src/config/upstream-auth.js";
import { createToolkit } from "../../src/create-toolkit.js";
import { collectServers } from "../../src/sources/mcp/config/collect-servers.js";

const jwt = { issuer: "https://idp.example/realms/r", audience: "toolnexus", jwksUri: "https://idp.example/jwks.json" };
const exchange = { mode: "exchange" as const, audience: "mcp-upstream", clientId: "toolnexus-gateway", clientSecret: "s3cret-value" };

describe("upstreamAuth config", () => {
  it("accepts exchange (secret or private_key_jwt) and passthrough on every remote source kind", async () => {
    const { config } = await normalizeConfig({
      auth: { jwt },
      http: [{ name: "h", url: "https://api.example/x", upstreamAuth: exchange }],
      openapi: [{ spec: "https://api.example/openapi.json", upstreamAuth: { mode: "passthrough" } }],
      agents: {
        a: {
          card: "https://agent.example/.well-known/agent-card.json",
          upstreamAuth: { ...exchange, clientAuthMethod: "client_secret_post" },
        },
      },
      mcpServers: {
        m: {
          url: "https://mcp.example/mcp",
          upstreamAuth: {
            mode: "exchange",
            resource: "https://mcp.example/mcp",
            scope: "tools:call",
            tokenEndpoint: "https://idp.example/token",
            clientId: "gw",
            privateKeyJwt: { key: "-----BEGIN PRIVATE KEY-----", kid: "k1", alg: "ES256" },
          },
        },
      },
    });
    expect(upstreamAuthOf(config.http?.[0] ?? { name: "", url: "" })).toMatchObject({ mode: "exchange", audience: "mcp-upstream" });
    expect(passthroughSources(config)).toEqual(["/openapi/0"]);
  });

  it("reads forwardAuth: true as passthrough, and refuses it beside upstreamAuth", async () => {
    const { config } = await normalizeConfig({ http: [{ name: "h", url: "https://api.example/x", forwardAuth: true }] });
    expect(upstreamAuthOf(config.http?.[0] ?? { name: "", url: "" })).toEqual({ mode: "passthrough" });
    expect(passthroughSources(config)).toEqual(["/http/0"]);
    expect(
      await issuesOf({ auth: { jwt }, http: [{ name: "h", url: "https://a/x", forwardAuth: true, upstreamAuth: exchange }] }),
    ).toContain("/http/0/forwardAuth cannot be set beside upstreamAuth");
  });

  it("needs exactly one of audience and resource, exactly one of clientSecret and privateKeyJwt, and a token endpoint", async () => {
    const http = (upstreamAuth: unknown, withJwt = true) => ({
      ...(withJwt ? { auth: { jwt } } : {}),
      http: [{ name: "h", url: "https://a/x", upstreamAuth }],
    });
    expect(await issuesOf(http({ ...exchange, resource: "https://a/" }))).toContain("needs exactly one of audience and resource");
    expect(await issuesOf(http({ ...exchange, audience: undefined }))).toContain("needs exactly one of audience and resource");
    expect(await issuesOf(http({ ...exchange, privateKeyJwt: { key: "k" } }))).toContain(
      "needs exactly one of clientSecret and privateKeyJwt",
    );
    expect(await issuesOf(http({ ...exchange, clientSecret: undefined }))).toContain("needs exactly one of clientSecret and privateKeyJwt");
    expect(await issuesOf(http(exchange, false))).toContain("needs tokenEndpoint, or auth.jwt");
    expect(await issuesOf(http({ ...exchange, mode: "forward" }))).toContain("/http/0/upstreamAuth");
    expect(await issuesOf(http({ ...exchange, tokenEndpoint: "ftp://idp/token" }))).toContain("/http/0/upstreamAuth");
    // With its own token endpoint, an exchange needs no auth.jwt.
    await expect(normalizeConfig(http({ ...exchange, tokenEndpoint: "https://idp.example/token" }, false))).resolves.toBeDefined();
  });

  it("refuses upstreamAuth on a local MCP server", async () => {
    const loaded = await normalizeConfig({ auth: { jwt }, mcpServers: { local: { command: "node", upstreamAuth: exchange } } });
    expect(collectServers(loaded)).toEqual([{ name: "local", error: expect.stringContaining("upstreamAuth") }]);
  });

  it("warns at load about every source that passes the caller's token through", async () => {
    const warnings: unknown[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (o: unknown, m?: string) => void warnings.push([o, m]) };
    await createToolkit({ http: [{ name: "h", url: "https://api.example/x", forwardAuth: true }] }, { logger });
    expect(warnings).toContainEqual([{ sources: ["/http/0"] }, expect.stringContaining("MCP authorization spec forbids")]);
    warnings.length = 0;
    await createToolkit(
      { http: [{ name: "h", url: "https://api.example/x", upstreamAuth: { ...exchange, tokenEndpoint: "https://idp/t" } }] },
      { logger },
    );
    expect(warnings).toEqual([]);
  });
});
