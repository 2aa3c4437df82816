import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeTool } from "../../helpers/execute.js";
import { startServer, type TestServer } from "../../helpers/server.js";
import { testTools } from "../../helpers/tools.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ config: { server: { bodyLimitBytes: 4_000_000 } }, tools: testTools() });
});
afterAll(() => s.close());

/** `{"a":{"a":…}}` nested `depth` levels, as JSON text (JSON.stringify itself would overflow). */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

describe("excessive arguments are refused before the tool runs", () => {
  it("422 INVALID_ARGUMENTS with a pointer for arguments nested 5,000 deep; never 500, never an error log", async () => {
    const res = await executeTool(s.url, "divide", `{"arguments":${nested(5000)}}`);
    expect(res.status).toBe(422);
    const problem = (await res.json()) as { code: string; errors: { pointer: string; message: string }[] };
    expect(problem.code).toBe("INVALID_ARGUMENTS");
    expect(problem.errors[0]?.pointer).toMatch(/^(\/a){64}$/);
    expect(s.logs.filter((l) => Number(l.level) >= 50)).toEqual([]);
  });

  it("400 INVALID_REQUEST for an answer whose data nests too deep", async () => {
    const res = await executeTool(
      s.url,
      "confirm",
      `{"arguments":{"what":"x"},"answer":{"id":"confirm-x","ok":true,"data":${nested(100)}}}`,
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: "INVALID_REQUEST",
      errors: [{ pointer: expect.stringMatching(/^\/answer\/data(\/a)+$/) }],
    });
  });
});
