import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { runTypedProgram } from "../helpers/typed-program.js";

const root = path.resolve(import.meta.dirname, "../..");
let s: TestServer;

beforeAll(async () => {
  s = await startServer({ config: path.join(root, "examples/config") });
});
afterAll(() => s.close());

const PROGRAM = `
import createClient from "openapi-fetch";
import type { paths } from "./api.js";

// Execute also answers text/event-stream (DESIGN §9): a JSON client says which media type it reads.
const client = createClient<paths, "application/json">({ baseUrl: process.argv[2] });
const { data, error } = await client.POST("/tools/echo/execute", { body: { arguments: { text: "typed hello" } } });
if (error || !data) throw new Error("call failed");
const output: string = data.output;
const failed: boolean = data.isError;
console.log(JSON.stringify({ output, failed }));

// The per-tool schema is enforced at compile time: text must be a string.
// @ts-expect-error number is not assignable to string
void client.POST("/tools/echo/execute", { body: { arguments: { text: 5 } } });
`;

describe("a typed client generated from GET /openapi.json", () => {
  it("type-checks a program calling one tool through openapi-fetch, and runs it", async () => {
    const stdout = await runTypedProgram(s.url, PROGRAM);
    expect(JSON.parse(stdout)).toEqual({ output: "typed hello", failed: false });
  });
});
