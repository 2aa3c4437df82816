import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../../helpers/free-port.js";
import { startServer, type TestServer } from "../../helpers/server.js";

// GET /oauth/client-metadata.json: the gateway's OAuth client described by itself, public,
// served only while there is a publicUrl to name it by and a user-oauth connection to use it.
const PATH = "/oauth/client-metadata.json";
let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const userOAuth = { name: "tickets", url: "https://tickets.example/api", upstreamAuth: { mode: "user-oauth" as const } };
const userSecret = { name: "saas", url: "https://saas.example/api", upstreamAuth: { mode: "user-secret" as const } };

describe("GET /oauth/client-metadata.json", () => {
  it("is the document whose client_id is its own URL, listing the callback, with no credential asked", async () => {
    const port = await freePort();
    // A trailing slash on publicUrl does not double the slash in the URLs below it.
    const publicUrl = `http://127.0.0.1:${port}/`;
    s = await startServer(
      { config: { server: { publicUrl }, auth: { apiKeys: [{ id: "a", key: "a-key-0123456789abcdef" }] }, http: [userOAuth] } },
      port,
    );
    const res = await fetch(`${s.url}${PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(await res.json()).toEqual({
      client_id: `${s.url}${PATH}`,
      client_name: "toolnexus",
      client_uri: publicUrl,
      redirect_uris: [`${s.url}/oauth/callback`],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
  });

  it("is 404 problem+json without server.publicUrl", async () => {
    s = await startServer({ config: { http: [userSecret] } });
    const res = await fetch(`${s.url}${PATH}`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({ status: 404, code: "NOT_FOUND", detail: expect.stringContaining("server.publicUrl") });
  });

  it("is 404 when no connection uses user-oauth, even with a publicUrl", async () => {
    s = await startServer({ config: { server: { publicUrl: "https://gw.example" }, http: [userSecret] } });
    const res = await fetch(`${s.url}${PATH}`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe("NOT_FOUND");
  });
});
