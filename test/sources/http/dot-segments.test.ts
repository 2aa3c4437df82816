import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeTool } from "../../helpers/execute.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { startUpstream, type Upstream } from "./upstream.js";

/**
 * A path placeholder set to "." or ".." would let the URL parser climb out of the declared
 * path (`/api/users/{id}/profile` with id ".." is `GET /api/profile`, with the tool's own
 * credentials). Percent-encoding does not help: the parser resolves `%2e%2e` as well.
 */
let up: Upstream;
let s: TestServer;

beforeAll(async () => {
  up = await startUpstream();
  s = await startServer({
    config: {
      http: [
        { name: "profile", url: `${up.url}/api/users/{id}/profile`, headers: { Authorization: "Bearer tool-token" } },
        { name: "joined", url: `${up.url}/api/files/{dir}{name}/raw` },
      ],
      openapi: [
        { spec: path.resolve(import.meta.dirname, "../../fixtures/openapi/users-3.0.json"), baseUrl: `${up.url}/api`, prefix: "users" },
      ],
    },
  });
});
afterAll(async () => {
  await s.close();
  await up.close();
});

async function refused(tool: string, args: Record<string, unknown>, pointers: string[]): Promise<void> {
  const res = await executeTool(s.url, tool, { arguments: args });
  const body = (await res.json()) as { code: string; errors?: { pointer: string }[]; detail: string };
  expect(res.status, JSON.stringify(args)).toBe(422);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(body.code).toBe("INVALID_ARGUMENTS");
  expect(body.detail).toMatch(/cannot be "\." or "\.\.": it would send the request to another path$/);
  expect(body.errors?.map((e) => e.pointer)).toEqual(pointers);
}

describe("dot-segment path arguments", () => {
  it("an http tool refuses . and .. (plain or percent-encoded) before sending anything", async () => {
    for (const id of ["..", ".", "%2e%2e", ".%2E", "%2E.", "%2e"]) await refused("profile", { id }, ["/id"]);
    await refused("joined", { dir: ".", name: "." }, ["/dir", "/name"]);
    expect(up.seen).toEqual([]);
  });

  it("an OpenAPI operation refuses them too", async () => {
    for (const id of ["..", ".", "%2e%2e", ".%2e"]) await refused("users_getProfile", { id }, ["/id"]);
    await refused("users_getFile", { dir: ".", name: "." }, ["/dir", "/name"]);
    expect(up.seen).toEqual([]);
  });

  it("values that only contain dots still go through, encoded", async () => {
    await executeTool(s.url, "profile", { arguments: { id: "..." } });
    await executeTool(s.url, "profile", { arguments: { id: "../admin" } });
    await executeTool(s.url, "users_getProfile", { arguments: { id: "a.." } });
    await executeTool(s.url, "joined", { arguments: { dir: "docs", name: ".." } });
    expect(up.seen.map((r) => r.url)).toEqual([
      "/api/users/.../profile",
      "/api/users/..%2Fadmin/profile",
      "/api/users/a../profile",
      "/api/files/docs../raw",
    ]);
    expect(up.seen.every((r) => r.url !== "/api/profile")).toBe(true);
  });
});
