import { afterEach, describe, expect, it } from "vitest";
import { rawRequest } from "../../helpers/raw-http.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { testTools } from "../../helpers/tools.js";

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const get = (url: string, target: string) => rawRequest(url, `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);

describe("route policy: every hook reads the policy of the route the request was routed to", () => {
  it("a probe is a probe however the router reaches it ('?' and '#'): never counted against a budget", async () => {
    s = await startServer({ config: { server: { rateLimit: { max: 1, timeWindowMs: 60_000 } } }, tools: testTools() });
    for (const target of ["/healthz", "/healthz?x=1", "/healthz#x", "/readyz#x", "/healthz#x", "/readyz?y"]) {
      expect((await get(s.url, target)).status, target).toBe(200);
    }
    // Not a probe: the budget of one is spent on the first, the second is refused.
    expect((await get(s.url, "/tools")).status).toBe(200);
    expect((await get(s.url, "/tools")).status).toBe(429);
  });

  it("a route without a policy is for callers, and an unrouted path (404) is too", async () => {
    s = await startServer({ config: { auth: { apiKeys: [{ id: "k", key: "route-policy-key-0123456789" }] } }, tools: testTools() });
    expect((await get(s.url, "/tools")).status).toBe(401);
    expect((await get(s.url, "/no-such-route")).status).toBe(401);
    expect((await get(s.url, "/healthz/")).status).toBe(401);
    expect((await get(s.url, "/healthz#x")).status).toBe(200);
    // /status is operator-only: a key without `operator` is refused once it is known.
    const status = await rawRequest(
      s.url,
      "GET /status HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer route-policy-key-0123456789\r\nConnection: close\r\n\r\n",
    );
    expect(status.status).toBe(403);
  });
});
