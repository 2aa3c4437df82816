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

// Execute also answers text/event-stream: a JSON client says which media type it reads.
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

// Submit through the per-tool typed operation, stream the events, read the final Execution.
const ASYNC_PROGRAM = `
import createClient from "openapi-fetch";
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { components, paths } from "./api.js";

type Execution = components["schemas"]["Execution"];
const client = createClient<paths>({ baseUrl: process.argv[2] });
const submitted = await client.POST("/tools/echo/executions", { body: { arguments: { text: "typed async" } } });
if (submitted.error || !submitted.data) throw new Error("submit failed");
const accepted: Execution = submitted.data;

const stream = await client.GET("/executions/{id}/events", { params: { path: { id: accepted.id } }, parseAs: "stream" });
if (!stream.response.body) throw new Error("no stream");
const events: string[] = [];
let result: unknown;
const reader = stream.response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
for (;;) {
  const { value, done } = await reader.read();
  if (done) break;
  events.push(value.event ?? "message");
  if (value.event === "result") result = JSON.parse(value.data);
}

const final = await client.GET("/executions/{id}", { params: { path: { id: accepted.id } } });
if (!final.data) throw new Error("get failed");
const status: "queued" | "running" | "input_required" | "succeeded" | "failed" | "cancelled" = final.data.status;
console.log(JSON.stringify({ events, result, status, output: final.data.result?.output }));

// The per-tool body is typed on the asynchronous operation too.
// @ts-expect-error number is not assignable to string
void client.POST("/tools/echo/executions", { body: { arguments: { text: 5 } } });
`;

describe("a typed client generated from GET /openapi.json drives an execution", () => {
  it("submit → events → result, type-checked and run", async () => {
    const stdout = await runTypedProgram(s.url, ASYNC_PROGRAM);
    expect(JSON.parse(stdout)).toEqual({
      events: ["execution", "result"],
      result: { output: "typed async", isError: false },
      status: "succeeded",
      output: "typed async",
    });
  });
});

// A resource read and a prompt get of an MCP server, through the generic typed operations.
const SURFACE_PROGRAM = `
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

type Contents = components["schemas"]["ResourceContents"];
const client = createClient<paths, "application/json">({ baseUrl: process.argv[2] });
const read = await client.GET("/resources/read", { params: { query: { uri: "alpha+file:///shared.txt" } } });
if (read.error || !read.data) throw new Error("read failed");
const first: Contents | undefined = read.data.contents[0];
const got = await client.POST("/prompts/{name}/get", { params: { path: { name: "alpha_greet" } }, body: { arguments: { name: "Ada" } } });
if (got.error || !got.data) throw new Error("prompt failed");
// A prompt's server may ask first: the union says so, and narrowing on it is typed.
if ("resultType" in got.data) throw new Error(\`asked first: \${Object.keys(got.data.inputRequests).join(",")}\`);
const missing = await client.POST("/prompts/{name}/get", { params: { path: { name: "alpha_nope" } }, body: {} });
console.log(JSON.stringify({ uri: first?.uri, text: first?.text, prompt: got.data.messages[0]?.content.text, missing: missing.response.status }));

// Prompt arguments are strings.
// @ts-expect-error number is not assignable to string
void client.POST("/prompts/{name}/get", { params: { path: { name: "alpha_greet" } }, body: { arguments: { name: 5 } } });
`;

describe("a typed client generated from GET /openapi.json reads resources and gets prompts", () => {
  it("reads an MCP server's resource and gets its prompt, type-checked and run", async () => {
    const surface = path.join(root, "test/fixtures/mcp/surface-server.mjs");
    const t = await startServer({
      config: { mcpServers: { alpha: { command: [process.execPath, surface], env: { SURFACE_NAME: "alpha" } } } },
    });
    try {
      const stdout = await runTypedProgram(t.url, SURFACE_PROGRAM);
      expect(JSON.parse(stdout)).toEqual({
        uri: "alpha+file:///shared.txt",
        text: "shared of alpha",
        prompt: "hello Ada from alpha",
        missing: 404,
      });
    } finally {
      await t.close();
    }
  }, 60_000);
});
