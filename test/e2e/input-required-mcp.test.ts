import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool } from "../../src/core/define-tool.js";
import { authRequired, pending } from "../../src/core/input/pending.js";
import { startReferenceServer, type ReferenceServer } from "../helpers/reference-server.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** A toolnexus tool that asks a question, and returns what the answer said. */
const favourite = defineTool({
  name: "favourite",
  description: "Asks for a colour",
  run: (_args, ctx) => {
    if (!ctx?.answer)
      return pending({
        kind: "question",
        prompt: "Your colour?",
        data: { questions: [{ question: "Your colour?", options: ["red", "blue"] }] },
      });
    return ctx.answer.ok ? `chose ${JSON.stringify(ctx.answer.data)}` : `declined (${ctx.answer.reason})`;
  },
});
/** A toolnexus tool that needs a login first. */
const login = defineTool({
  name: "login",
  description: "Needs a login",
  run: (_args, ctx) => (ctx?.answer ? `logged in: ${ctx.answer.ok}` : authRequired("https://idp.example/authorize?x=1", "Please log in")),
});

type Elicit = { params: { mode?: string; message: string; url?: string; requestedSchema?: unknown } };

async function modernClient(url: string, capabilities: Record<string, unknown>): Promise<Client> {
  const client = new Client({ name: "mrtr-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

/**
 * `/mcp` 2026-07-28 clients (the v2 SDK client, whose multi-round-trip driver answers
 * input_required through its own elicitation handler): a toolnexus pending and a 2026
 * upstream's input requests are answered by the MRTR retry.
 */
describe("input requests on /mcp", () => {
  let ref: ReferenceServer;
  let srv: TestServer;
  const seen: Elicit["params"][] = [];

  beforeAll(async () => {
    ref = await startReferenceServer();
    srv = await startServer({
      config: { mcpServers: { everything: { url: ref.url, prefix: false as const, protocolVersion: "2026-07-28" } } },
      tools: [favourite, login],
    });
  }, 120_000);
  afterAll(async () => {
    await srv?.close();
    await ref?.close();
  });

  async function answering(reply: (p: Elicit["params"]) => Record<string, unknown>): Promise<Client> {
    const client = await modernClient(srv.url, { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} });
    client.setRequestHandler("elicitation/create", (req) => {
      const params = (req as unknown as Elicit).params;
      seen.push(params);
      return reply(params) as never;
    });
    client.setRequestHandler(
      "sampling/createMessage",
      () => ({ role: "assistant", content: { type: "text", text: "Paris" }, model: "m" }) as never,
    );
    client.setRequestHandler("roots/list", () => ({ roots: [{ uri: "file:///a" }, { uri: "file:///b" }] }) as never);
    return client;
  }

  it("a toolnexus question becomes a form elicitation; the accepted content is the tool's answer", async () => {
    const client = await answering(() => ({ action: "accept", content: { q1: "blue" } }));
    try {
      const r = await client.callTool({ name: "favourite", arguments: {} });
      expect(r.content).toEqual([{ type: "text", text: 'chose {"q1":"blue"}' }]);
      expect(seen.at(-1)).toMatchObject({
        mode: "form",
        message: "Your colour?",
        requestedSchema: { properties: { q1: { enum: ["red", "blue"] } } },
      });
    } finally {
      await client.close();
    }
  });

  it("a login becomes a URL elicitation; a declined one reaches the tool as not ok", async () => {
    const client = await answering(() => ({ action: "decline" }));
    try {
      const r = await client.callTool({ name: "login", arguments: {} });
      expect(r.content).toEqual([{ type: "text", text: "logged in: false" }]);
      expect(seen.at(-1)).toMatchObject({ mode: "url", url: "https://idp.example/authorize?x=1" });
    } finally {
      await client.close();
    }
  });

  it("a 2026 upstream's elicitation, sampling, roots and several rounds are answered by the client", async () => {
    const client = await answering((p) => ({
      action: "accept",
      content: p.message.includes("color") ? { color: "green" } : { name: "Ada" },
    }));
    try {
      const text = async (name: string) => ((await client.callTool({ name, arguments: {} })).content as { text: string }[])[0]?.text;
      expect(await text("test_input_required_result_elicitation")).toBe("Hello, Ada!");
      expect(await text("test_input_required_result_sampling")).toBe("Sampling result: Paris");
      expect(await text("test_input_required_result_list_roots")).toBe("Found 2 root(s)");
      expect(await text("test_input_required_result_multi_round")).toBe("Multi-round complete for Ada who likes green");
    } finally {
      await client.close();
    }
  });

  it("refuses a forged requestState with -32602 before the upstream sees it", async () => {
    const client = await modernClient(srv.url, { elicitation: { form: {} } });
    try {
      const before = ref.received.length;
      const call = client.callTool({
        name: "test_input_required_result_elicitation",
        arguments: {},
        inputResponses: { user_name: { action: "accept", content: { name: "x" } } },
        requestState: "forged",
      } as never);
      await expect(call).rejects.toMatchObject({ code: -32602 });
      expect(ref.received.length).toBe(before);
    } finally {
      await client.close();
    }
  });

  it("a client that cannot answer (no elicitation declared, or a 2025 client) gets the pending as an isError result", async () => {
    const plain = await modernClient(srv.url, {});
    const legacy = new Client({ name: "old", version: "1.0.0" }, { supportedProtocolVersions: ["2025-11-25"] });
    await legacy.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`)));
    try {
      for (const client of [plain, legacy]) {
        const r = await client.callTool({ name: "favourite", arguments: {} });
        expect(r.isError).toBe(true);
        expect(r._meta?.["toolnexus/pending"]).toMatchObject({ kind: "question", prompt: "Your colour?" });
      }
    } finally {
      await plain.close();
      await legacy.close();
    }
  });
});
