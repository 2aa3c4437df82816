import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type ClientCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { startServeProcess, type ServeProcess } from "../helpers/serve-process.js";

const root = path.resolve(import.meta.dirname, "../..");
const KEYS = { alice: "alice-key-0123456789abcdef", bob: "bob-key-0123456789abcdefgh" };
const INPUT_TIMEOUT_MS = 3000;
type Json = Record<string, unknown>;

/** A POST of a JSON-RPC response (the client's reply to a server's request), as a 2025 client sends it. */
function isReply(init: RequestInit | undefined): boolean {
  if (init?.method !== "POST" || typeof init.body !== "string") return false;
  const m = JSON.parse(init.body) as Json;
  return m.method === undefined && ("result" in m || "error" in m);
}

/** One raw JSON-RPC POST of `key` to `replica`'s /mcp, with the headers every request here carries. */
function postMcp(replica: ServeProcess, key: string, headers: Record<string, string>, body: Json): Promise<Response> {
  return fetch(`${replica.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** A raw reply of `key` to `replica`, with the id of a request the gateway sent. */
async function reply(replica: ServeProcess, key: string, id: unknown, result: Json): Promise<{ status: number; body: Json }> {
  const res = await postMcp(replica, key, { "mcp-protocol-version": "2025-11-25" }, { jsonrpc: "2.0", id, result });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json };
}

const MODERN = "2026-07-28";

/** A raw 2026-07-28 tools/call of `key` to `replica` (its envelope declaring elicitation): the JSON-RPC response. */
async function modernCall(replica: ServeProcess, key: string, name: string, extra: Json = {}): Promise<Json> {
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "relay-test", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  };
  const res = await postMcp(
    replica,
    key,
    { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": name },
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {}, ...extra, _meta } },
  );
  const text = await res.text();
  // A JSON body, or the last message of an event stream.
  const data = text.startsWith("{")
    ? text
    : (
        text
          .split("\n")
          .filter((l) => l.startsWith("data: "))
          .pop() ?? ""
      ).slice(6);
  return JSON.parse(data) as Json;
}

// A native tool whose pending carries a roots/list request as is (as a 2026 upstream's input_required does).
const ROOTS_PLUGIN = `export default {
  name: "count_roots", description: "Counts the client's roots", inputSchema: { type: "object" }, source: "native",
  async execute(_args, ctx) {
    const roots = ctx?.answer?.data?.inputResponses?.roots?.roots;
    if (roots) return { output: "roots: " + roots.map((r) => r.uri).join(","), isError: false };
    const pending = { id: "roots", kind: "roots", prompt: "Your roots?", data: { inputRequests: { roots: { method: "roots/list" } } } };
    return { output: pending.prompt, isError: true, metadata: { pending } };
  },
};
`;

const textOf = (r: Json): string => ((r.content as { text: string }[])[0] ?? { text: "" }).text;

describe("/mcp 2025 clients get an upstream's mid-call requests on their call's stream (two replicas, Redis)", () => {
  let redis: RedisServer;
  let a: ServeProcess;
  let b: ServeProcess;
  let dir: string;
  const clients: Client[] = [];
  /** The reply POSTs a client sent, and the replica each went to. */
  const sent: { to: string; body: Json }[] = [];

  /** A 1.x SDK client of `key` on replica A whose replies (JSON-RPC responses) are POSTed to replica B. */
  async function connect(
    key: string,
    capabilities: ClientCapabilities,
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const client = new Client({ name: "relay-test", version: "1.0.0" }, { capabilities });
    const transport = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: (url, init) => {
        if (!isReply(init)) return fetch(url, init);
        sent.push({ to: b.url, body: JSON.parse(init?.body as string) as Json });
        return fetch(String(url).replace(a.url, b.url), init);
      },
    });
    clients.push(client);
    await client.connect(transport);
    return { client, transport };
  }

  beforeAll(async () => {
    redis = await startRedis();
    dir = await mkdtemp(path.join(os.tmpdir(), "toolnexus-relay-"));
    const config = [
      'redis: { url: "${REDIS_URL}" }',
      `server: { stateSecret: "relay-test-state-secret-0123456789abcdef", inputTimeoutMs: ${INPUT_TIMEOUT_MS} }`,
      "auth:",
      "  apiKeys:",
      `    - { id: alice, key: ${KEYS.alice} }`,
      `    - { id: bob, key: ${KEYS.bob} }`,
      // Native tools that end in a pending: a question then an approval; roots/list carried as a 2026 upstream's input_required is.
      `plugins: [${JSON.stringify(path.join(root, "test/fixtures/plugins/pending-rounds.mjs"))}, ./roots.mjs]`,
      // A 2025-era upstream that asks mid-call (elicitation/create, sampling/createMessage).
      `mcpServers: { asker: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(path.join(root, "test/fixtures/mcp/asking-server.mjs"))}] } }`,
    ].join("\n");
    await writeFile(path.join(dir, "toolnexus.yaml"), config);
    await writeFile(path.join(dir, "roots.mjs"), ROOTS_PLUGIN);
    const env = { ...process.env, REDIS_URL: redis.url };
    [a, b] = await Promise.all([startServeProcess(dir, env), startServeProcess(dir, env)]);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("relays elicitation/create to a client that declared elicitation; its reply, sent to the other replica, reaches the upstream", async () => {
    const { client, transport } = await connect(KEYS.alice, { elicitation: {} });
    // The session id is the sealed memo of the capabilities: the call POSTs carry it back.
    expect(transport.sessionId).toBeTruthy();
    const asked: Json[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params as Json);
      return { action: "accept", content: { response: "blue" } };
    });
    const before = sent.length;
    const result = (await client.callTool({ name: "asker_ask", arguments: { message: "Favourite colour?" } })) as Json;
    expect(asked).toEqual([expect.objectContaining({ message: "Favourite colour?" })]);
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({ action: "accept", content: { response: "blue" } });
    // The reply went to replica B, which never saw the request; the call ran on A.
    expect(sent.slice(before)).toEqual([{ to: b.url, body: expect.objectContaining({ id: expect.any(String) }) }]);
  });

  it("relays sampling/createMessage, and every round of a call that asks twice", async () => {
    const { client } = await connect(KEYS.alice, { elicitation: {}, sampling: {} });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: "assistant",
      content: { type: "text", text: "Paris" },
      model: "test-model",
    }));
    let n = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { response: `answer ${++n}` } }));
    const sampled = (await client.callTool({ name: "asker_sample", arguments: { message: "Capital of France?" } })) as Json;
    expect(JSON.parse(textOf(sampled))).toMatchObject({ model: "test-model", content: { text: "Paris" } });
    const twice = (await client.callTool({ name: "asker_ask_twice", arguments: { message: "Sure?" } })) as Json;
    expect(JSON.parse(textOf(twice))).toEqual([
      { action: "accept", content: { response: "answer 1" } },
      { action: "accept", content: { response: "answer 2" } },
    ]);
  });

  it("a client's error reply reaches the upstream as that error", async () => {
    const { client } = await connect(KEYS.alice, { elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      throw new Error("the user closed the dialog");
    });
    const result = (await client.callTool({ name: "asker_ask", arguments: {} })) as Json;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("the user closed the dialog");
  });

  it("passes the client's reply on verbatim: the upstream that asked checks it (content outside its requestedSchema too)", async () => {
    const { client } = await connect(KEYS.alice, { elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { username: "ada" } }));
    const result = (await client.callTool({ name: "asker_ask", arguments: {} })) as Json;
    expect(JSON.parse(textOf(result))).toEqual({ action: "accept", content: { username: "ada" } });
  });

  it("asks a client nothing it did not declare: without the capability the upstream is refused, as before", async () => {
    const { client, transport } = await connect(KEYS.alice, {});
    expect(transport.sessionId).toBeUndefined();
    const before = sent.length;
    const result = (await client.callTool({ name: "asker_ask", arguments: {} })) as Json;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/cannot answer input requests/);
    // A client with elicitation only is not sent a sampling request either.
    const { client: elicitOnly } = await connect(KEYS.alice, { elicitation: {} });
    const sampled = (await elicitOnly.callTool({ name: "asker_sample", arguments: {} })) as Json;
    expect(sampled.isError).toBe(true);
    expect(textOf(sampled)).toMatch(/Method not found/);
    expect(sent.length).toBe(before);
  });

  it("refuses a forged id and another caller's reply (400 INVALID_STATE): nothing is delivered", async () => {
    const { client } = await connect(KEYS.alice, { elicitation: {} });
    const refused: { status: number; body: Json }[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (_req, extra) => {
      const id = String(extra.requestId);
      // Bob replies to Alice's question with its real id; then a forged id and a tampered one.
      refused.push(await reply(b, KEYS.bob, id, { action: "accept", content: { response: "from bob" } }));
      refused.push(await reply(b, KEYS.alice, "not-a-sealed-id", { action: "accept", content: { response: "forged" } }));
      const tampered = `${id.slice(0, -4)}${id.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
      refused.push(await reply(a, KEYS.alice, tampered, { action: "accept", content: { response: "tampered" } }));
      return { action: "accept", content: { response: "from alice" } };
    });
    const result = (await client.callTool({ name: "asker_ask", arguments: {} })) as Json;
    expect(refused.map((r) => [r.status, (r.body.error as { data?: Json }).data?.code])).toEqual([
      [400, "INVALID_STATE"],
      [400, "INVALID_STATE"],
      [400, "INVALID_STATE"],
    ]);
    expect(JSON.parse(textOf(result))).toEqual({ action: "accept", content: { response: "from alice" } });
  });

  it("ends the wait after inputTimeoutMs: the call fails INPUT_TIMEOUT and a late reply is refused", async () => {
    const { client } = await connect(KEYS.alice, { elicitation: {} });
    let release!: () => void;
    const settled = new Promise<void>((r) => (release = r));
    let late: { status: number; body: Json } | undefined;
    client.setRequestHandler(ElicitRequestSchema, async (_req, extra) => {
      await settled;
      late = await reply(b, KEYS.alice, extra.requestId, { action: "accept", content: { response: "too late" } });
      return { action: "accept", content: { response: "too late" } };
    });
    const call = client.callTool({ name: "asker_ask", arguments: {} }).finally(release);
    await expect(call).rejects.toMatchObject({ data: { code: "INPUT_TIMEOUT" } });
    await expect.poll(() => late?.status, { timeout: 5000 }).toBeDefined();
    expect([400, 410]).toContain(late?.status);
  });

  it("a native tool's pendings reach a 2025 client as elicitation/create on the call's stream; replies on the other replica complete it", async () => {
    const { client } = await connect(KEYS.alice, { elicitation: {} });
    const asked: Json[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params as Json);
      return { action: "accept", content: asked.length === 1 ? { q1: "red" } : {} };
    });
    const before = sent.length;
    const result = (await client.callTool({ name: "two_rounds", arguments: {} })) as Json;
    expect(asked.map((a) => a.message)).toEqual(["Colour?", "Sure about red?"]);
    expect(result).toMatchObject({ content: [{ type: "text", text: "colour=red, sure=true" }] });
    expect(result.isError).toBeFalsy();
    expect(sent.slice(before).map((s) => s.to)).toEqual([b.url, b.url]);
  });

  it("a pending's roots/list reaches a client that declared roots; one without the capability gets the pending as isError", async () => {
    const { client } = await connect(KEYS.alice, { roots: {} });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///work", name: "work" }] }));
    const result = (await client.callTool({ name: "count_roots", arguments: {} })) as Json;
    expect(result).toMatchObject({ content: [{ type: "text", text: "roots: file:///work" }] });
    const { client: without } = await connect(KEYS.alice, { elicitation: {} });
    const refused = (await without.callTool({ name: "count_roots", arguments: {} })) as Json;
    expect(refused).toMatchObject({ isError: true, _meta: { "toolnexus/pending": { kind: "roots" } } });
  });

  it("a 2026 client's plain call whose 2025 upstream asks is input_required; the retry, on the other replica, answers the held call", async () => {
    const retries: string[] = [];
    const client = new ModernClient(
      { name: "relay-test", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { form: {} } } },
    );
    // Every retry (a tools/call carrying a requestState) goes to replica B.
    const transport = new ModernTransport(new URL(`${a.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${KEYS.alice}` } },
      fetch: (url, init) => {
        const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { params?: Json }) : undefined;
        if (typeof body?.params?.requestState !== "string") return fetch(url, init);
        retries.push(b.url);
        return fetch(String(url).replace(a.url, b.url), init);
      },
    });
    await client.connect(transport);
    let n = 0;
    client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: { response: `modern ${++n}` } }));
    try {
      const once = (await client.callTool({ name: "asker_ask", arguments: { message: "Colour?" } })) as Json;
      expect(JSON.parse(textOf(once))).toEqual({ action: "accept", content: { response: "modern 1" } });
      const twice = (await client.callTool({ name: "asker_ask_twice", arguments: {} })) as Json;
      expect(JSON.parse(textOf(twice))).toEqual([
        { action: "accept", content: { response: "modern 2" } },
        { action: "accept", content: { response: "modern 3" } },
      ]);
      expect(retries).toEqual([b.url, b.url, b.url]);
    } finally {
      await client.close();
    }
  });

  it("a held call's requestState is refused to another caller (-32602 INVALID_STATE), and then answered by its own", async () => {
    const first = (await modernCall(a, KEYS.alice, "asker_ask")).result as Json;
    expect(first).toMatchObject({ resultType: "input_required", requestState: expect.any(String) });
    // The key is the gateway's id of the upstream's request (elicitation-<n>).
    const [key] = Object.keys(first.inputRequests as Json);
    expect((first.inputRequests as Record<string, Json>)[key!]).toMatchObject({ method: "elicitation/create" });
    const answer = (response: string) => ({
      requestState: first.requestState,
      inputResponses: { [key!]: { action: "accept", content: { response } } },
    });
    const foreign = await modernCall(b, KEYS.bob, "asker_ask", answer("bob"));
    expect(foreign.error).toMatchObject({ code: -32602, data: { code: "INVALID_STATE" } });
    const own = await modernCall(b, KEYS.alice, "asker_ask", answer("alice"));
    expect(JSON.parse(textOf(own.result as Json))).toEqual({ action: "accept", content: { response: "alice" } });
  });
});
