import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROMPT_QUESTION, startBolted2026Server, type Bolted2026Server } from "../fixtures/mcp/bolted-2026-server.js";
import { CLI } from "../helpers/serve-process.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { tempDir } from "../helpers/temp-dir.js";
import { eventually } from "../helpers/wait.js";

const KEY_A = "k-prompt-a-1234567890";
const KEY_B = "k-prompt-b-1234567890";
const ANSWER = { topic: { action: "accept", content: { topic: "gateways" } } };
const FILLED = [{ role: "user", content: { type: "text", text: "Write about gateways" } }];

type Json = Record<string, unknown>;

/**
 * A prompt whose 2026 server asks a question before it fills the prompt in (`input_required`
 * on `prompts/get`): the question reaches the caller on `/mcp` and on REST with a state the
 * gateway sealed, and the caller's retry reaches the server with the server's own state.
 */
describe("a prompt whose server asks first", () => {
  let srv: TestServer;
  let upstream: Bolted2026Server;
  let audit: string;
  let dir: string;

  beforeAll(async () => {
    upstream = await startBolted2026Server();
    // Its own directory: tempDir's are removed after each test.
    dir = await mkdtemp(path.join(os.tmpdir(), "toolnexus-prompt-input-"));
    audit = path.join(dir, "audit.log");
    srv = await startServer({
      config: {
        audit: { sink: "file", path: audit },
        mcpServers: { bolted: { url: upstream.url, prefix: false } },
        auth: {
          apiKeys: [
            { id: "a", key: KEY_A, tools: ["*"] },
            { id: "b", key: KEY_B, tools: ["*"] },
          ],
        },
      },
    });
  }, 30_000);
  afterAll(async () => {
    await srv?.close();
    await upstream?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function connect(key: string, era: "modern" | "legacy", elicit = true): Promise<Client> {
    const client = new Client(
      { name: "prompt-input", version: "1.0.0" },
      {
        ...(era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : { supportedProtocolVersions: ["2025-11-25"] }),
        capabilities: elicit ? { elicitation: { form: {} } } : {},
      },
    );
    if (elicit) client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { topic: "gateways" } }));
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { requestInit: { headers: { "x-api-key": key } } }));
    return client;
  }

  it("a 2026 client that answers elicitations gets the prompt filled in, the server's state echoed", async () => {
    const client = await connect(KEY_A, "modern");
    const before = upstream.promptGets.length;
    try {
      const got = await client.getPrompt({ name: "ask_first" });
      expect(got.messages).toEqual(FILLED);
    } finally {
      await client.close();
    }
    const [first, retry] = upstream.promptGets.slice(before);
    // The server is told what the caller can answer, and gets its own state back byte for byte.
    expect((first?._meta as Json)["io.modelcontextprotocol/clientCapabilities"]).toEqual({ elicitation: { form: {} } });
    expect(retry).toMatchObject({ name: "ask_first", requestState: "bolted-state-1", inputResponses: ANSWER });
  });

  it("hands the question on with a sealed state, and refuses a state altered, another caller's, or answers that do not fit", async () => {
    const a = await connect(KEY_A, "modern");
    const b = await connect(KEY_B, "modern");
    try {
      const asked = (await a.getPrompt({ name: "ask_first" }, { allowInputRequired: true })) as unknown as Json;
      expect(asked).toMatchObject({ resultType: "input_required", inputRequests: PROMPT_QUESTION });
      const state = asked.requestState as string;
      expect(state).not.toContain("bolted-state-1");
      const before = upstream.promptGets.length;
      const retry = (client: Client, requestState: string, inputResponses: Json) =>
        client.getPrompt({ name: "ask_first", requestState, inputResponses } as never).catch((e: unknown) => e);
      const altered = await retry(a, `${state.slice(0, -2)}xx`, ANSWER);
      const foreign = await retry(b, state, ANSWER);
      const unfit = await retry(a, state, { topic: { action: "accept", content: { topic: 5 } } });
      // Nor does it answer another prompt of the same server, or a tool call.
      const otherPrompt = await a
        .getPrompt({ name: "ask_first_too", requestState: state, inputResponses: ANSWER } as never)
        .catch((e: unknown) => e);
      const toolCall = await a
        .callTool({ name: "shapes", arguments: {}, requestState: state, inputResponses: ANSWER } as never)
        .catch((e: unknown) => e);
      for (const err of [altered, foreign, unfit, otherPrompt, toolCall]) expect(err).toBeInstanceOf(ProtocolError);
      expect((altered as ProtocolError).data).toMatchObject({ code: "INVALID_STATE" });
      // Another caller, prompt or tool is told exactly what a forged state is told.
      for (const err of [foreign, otherPrompt, toolCall]) expect((err as ProtocolError).message).toBe((altered as ProtocolError).message);
      expect((unfit as ProtocolError).data).toMatchObject({ code: "INVALID_INPUT_RESPONSES" });
      expect(upstream.promptGets.length).toBe(before);
      const got = (await retry(a, state, ANSWER)) as Json;
      expect(got.messages).toEqual(FILLED);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("a REST caller gets the question as PromptInputRequired and answers it on the same route", async () => {
    const post = async (body: Json) => {
      const res = await fetch(`${srv.url}/prompts/ask_first/get`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": KEY_A },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const asked = await post({});
    expect(asked).toMatchObject({ status: 200, body: { resultType: "input_required", inputRequests: PROMPT_QUESTION } });
    const requestState = asked.body.requestState as string;
    expect(await post({ requestState, inputResponses: { topic: { action: "accept" } } })).toMatchObject({
      status: 422,
      body: { code: "INVALID_INPUT_RESPONSES" },
    });
    expect(await post({ requestState: "not-a-state", inputResponses: ANSWER })).toMatchObject({
      status: 400,
      body: { code: "INVALID_STATE" },
    });
    expect(await post({ inputResponses: ANSWER })).toMatchObject({ status: 400, body: { code: "INVALID_REQUEST" } });
    expect(await post({ requestState, inputResponses: ANSWER })).toEqual({ status: 200, body: { messages: FILLED } });
    // The audit trail tells the question from the prompt got.
    const lines = async () =>
      (await readFile(audit, "utf8").catch(() => ""))
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Json)
        .filter((l) => l.transport === "rest" && l.tool === "prompts/get ask_first");
    await eventually(async () => ((await lines()).length >= 2 ? true : undefined), { timeoutMs: 5000, everyMs: 50 });
    const rest = await lines();
    expect(rest[0]).toMatchObject({ outcome: "ok", pending: true });
    expect(rest.at(-1)).toMatchObject({ outcome: "ok" });
    expect(rest.at(-1)).not.toHaveProperty("pending");
  });

  it("a 2025 client on stdio is asked on its connection and gets the prompt filled in", async () => {
    const dir = await tempDir({ "toolnexus.yaml": `mcpServers: { bolted: { url: "${upstream.url}", prefix: false } }\n` });
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--config", dir], stderr: "pipe" });
    const client = new Client(
      { name: "prompt-input-stdio", version: "1.0.0" },
      { supportedProtocolVersions: ["2025-11-25"], capabilities: { elicitation: { form: {} } } },
    );
    const asked: unknown[] = [];
    client.setRequestHandler("elicitation/create", async (req) => {
      asked.push(req.params);
      return { action: "accept", content: { topic: "gateways" } };
    });
    await client.connect(transport);
    try {
      const got = await client.getPrompt({ name: "ask_first" });
      expect(got.messages).toEqual(FILLED);
      expect(asked).toEqual([expect.objectContaining({ message: "Which topic?" })]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it.each([
    ["a 2026 client that declared no elicitation is not handed", "modern", false, "which this client did not declare it can answer"],
    ["a 2025 client over HTTP cannot be handed", "legacy", true, "which this connection cannot carry"],
  ] as const)("%s the question: a clear error", async (_, era, elicit, why) => {
    const client = await connect(KEY_A, era, elicit);
    try {
      const err = await client.getPrompt({ name: "ask_first" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProtocolError);
      expect((err as ProtocolError).message).toContain(`asks for input (elicitation/create) to get prompt "ask_first", ${why}`);
      expect((err as ProtocolError).data).toMatchObject({ code: "UPSTREAM_ERROR" });
    } finally {
      await client.close();
    }
  });
});
