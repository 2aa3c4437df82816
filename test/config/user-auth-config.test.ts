import { describe, expect, it } from "vitest";
import { normalizeConfig } from "../../src/config/load.js";
import { userAuthOf, userAuths } from "../../src/config/upstream-auth.js";
import { issuesOf } from "../helpers/config-issues.js";

const SECRET = "x".repeat(40);

describe("upstreamAuth user-oauth and user-secret config", () => {
  it("names each connection by its source (or upstreamAuth.source) and takes user-oauth's resource from the upstream URL", async () => {
    const { config } = await normalizeConfig({
      server: { publicUrl: "https://gw.example", stateSecret: SECRET },
      redis: { url: "redis://127.0.0.1:6379" },
      mcpServers: { gh: { url: "https://mcp.example/mcp?x=1", upstreamAuth: { mode: "user-oauth", clientId: "toolnexus" } } },
      http: [{ name: "lin", url: "https://api.example/{id}", upstreamAuth: { mode: "user-secret", source: "linear" } }],
      openapi: [{ spec: "https://api.example/openapi.json", prefix: "pets", upstreamAuth: { mode: "user-secret" } }],
    });
    expect(userAuths(config).map((u) => u.source)).toEqual(["gh", "linear", "pets"]);
    expect(userAuthOf(config, "gh")).toEqual({
      mode: "user-oauth",
      clientId: "toolnexus",
      source: "gh",
      resource: "https://mcp.example/mcp",
    });
    expect(userAuthOf(config, "linear")).toMatchObject({ mode: "user-secret", source: "linear" });
    expect(userAuthOf(config, "nowhere")).toBeUndefined();
  });

  it("refuses what cannot work: no publicUrl for a login, a shared vault without stateSecret, a secret without a client id, a bad header or format", async () => {
    // The schema first: a header name with CR LF, a format without its placeholder.
    const schema = await issuesOf({
      http: [
        { name: "a", url: "https://api.example/a", upstreamAuth: { mode: "user-secret", header: "X-Key\r\nEvil", format: "{secret}" } },
        { name: "b", url: "https://api.example/b", upstreamAuth: { mode: "user-secret", format: "no placeholder" } },
      ],
    });
    expect(schema).toMatch(/\/http\/0\/upstreamAuth\/header/);
    expect(schema).toMatch(/\/http\/1\/upstreamAuth\/format/);
    const text = await issuesOf({
      redis: { url: "redis://127.0.0.1:6379" },
      mcpServers: { gh: { url: "https://mcp.example/mcp", upstreamAuth: { mode: "user-oauth", clientSecret: "s" } } },
      openapi: [{ spec: "https://api.example/openapi.json", upstreamAuth: { mode: "user-secret" } }],
    });
    expect(text).toContain("needs server.publicUrl");
    expect(text).toContain("needs server.stateSecret");
    expect(text).toContain("upstreamAuth/clientSecret applies to clientId only");
    expect(text).toContain("needs source");
  });
});
