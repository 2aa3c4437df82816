import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
let s: TestServer;
let dir: string;

beforeAll(async () => {
  s = await startServer({ config: path.join(root, "examples/config") });
  // Inside the repo so the program resolves openapi-fetch from our node_modules.
  await mkdir(path.join(root, ".tmp"), { recursive: true });
  dir = await mkdtemp(path.join(root, ".tmp", "typed-client-"));
});
afterAll(async () => {
  await s.close();
  await rm(dir, { recursive: true, force: true });
});

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
    const ast = await openapiTS(new URL(`${s.url}/openapi.json`));
    await writeFile(path.join(dir, "api.d.ts"), astToString(ast));
    await writeFile(path.join(dir, "main.ts"), PROGRAM);
    await writeFile(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
    await writeFile(path.join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: true, outDir: "out", types: ["node"], typeRoots: [path.join(root, "node_modules/@types")] },
      files: ["main.ts", "api.d.ts"],
    }));

    await run(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", dir]).catch((err: { stdout: string }) => {
      throw new Error(`tsc failed:\n${err.stdout}`);
    });
    const { stdout } = await run(process.execPath, [path.join(dir, "out", "main.js"), s.url]);
    expect(JSON.parse(stdout)).toEqual({ output: "typed hello", failed: false });
  });
});
