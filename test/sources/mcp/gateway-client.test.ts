import {
  Client,
  InMemoryTransport,
  type ClientOptions,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type JSONRPCMessage,
} from "@modelcontextprotocol/client";
import { fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { afterEach, describe, expect, it, vi } from "vitest";
import { GatewayClient } from "../../../src/sources/mcp/connection/gateway-client.js";

const WEATHER = { type: "object", properties: { temp: { type: "number" } }, required: ["temp"] };

/** A real v2 server of either era on an in-memory wire; results of `broken` and `offschema` are spoiled on the wire (the SDK server checks its own). */
function serve(): InMemoryTransport {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (msg: JSONRPCMessage, opts) => {
    const result = "result" in msg ? (msg.result as { _meta?: { spoil?: string } }) : undefined;
    const spoil = result?._meta?.spoil;
    if (spoil === "broken") return send({ ...msg, result: { ...result, content: "not a list" } } as JSONRPCMessage, opts);
    if (spoil === "offschema") return send({ ...msg, result: { ...result, structuredContent: { temp: "hot" } } } as JSONRPCMessage, opts);
    return send(msg, opts);
  };
  serveStdio(
    () => {
      const server = new McpServer({ name: "gw-client-fixture", version: "1.0.0" });
      const none = fromJsonSchema({ type: "object", properties: {} });
      server.registerTool("echo", { inputSchema: none }, async () => ({ content: [{ type: "text", text: "hi" }] }));
      server.registerTool("broken", { inputSchema: none }, async () => ({ content: [], _meta: { spoil: "broken" } }));
      server.registerTool("weather", { inputSchema: none, outputSchema: fromJsonSchema(WEATHER) }, async () => ({
        content: [],
        structuredContent: { temp: 21 },
      }));
      server.registerTool("offschema", { inputSchema: none, outputSchema: fromJsonSchema(WEATHER) }, async () => ({
        content: [],
        structuredContent: { temp: 21 },
        _meta: { spoil: "offschema" },
      }));
      return server;
    },
    { transport: serverSide },
  );
  return clientSide;
}

const ERAS: Record<"legacy" | "modern", ClientOptions> = {
  legacy: { supportedProtocolVersions: ["2025-11-25"] },
  modern: { versionNegotiation: { mode: { pin: "2026-07-28" } } },
};
const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function connect(kind: typeof Client, era: keyof typeof ERAS): Promise<Client> {
  const client = new kind({ name: "t", version: "1" }, ERAS[era]);
  open.push(client);
  await client.connect(serve());
  expect(client.getProtocolEra()).toBe(era);
  await client.listTools();
  return client;
}

/** What a call settles to, in a form two clients can be compared by. */
async function outcome(client: Client, name: string): Promise<unknown> {
  try {
    return { result: await client.callTool({ name, arguments: {} }) };
  } catch (err) {
    const e = err as Error & { code?: unknown };
    return { error: e.constructor.name, code: e.code, message: e.message };
  }
}

describe.each(["legacy", "modern"] as const)("GatewayClient, %s era", (era) => {
  it("answers every tools/call as the SDK's own client does: results, malformed results, structured output off its schema", async () => {
    const ours = await connect(GatewayClient, era);
    const stock = await connect(Client, era);
    for (const name of ["echo", "broken", "weather", "offschema"]) expect(await outcome(ours, name)).toEqual(await outcome(stock, name));
    expect(await outcome(ours, "echo")).toMatchObject({ result: { content: [{ type: "text", text: "hi" }] } });
    expect(await outcome(ours, "broken")).toMatchObject({ error: SdkError.name, code: SdkErrorCode.InvalidResult });
    expect(await outcome(ours, "offschema")).toMatchObject({
      error: ProtocolError.name,
      message: /does not match the tool's output schema/,
    });
  });

  it("validates a result once, without probing the era's schema with undefined on every call", async () => {
    const client = await connect(GatewayClient, era);
    const codec = (client as unknown as { _wireCodec(): { validateResult(method: string, raw: unknown): unknown } })._wireCodec();
    const validate = vi.spyOn(codec, "validateResult");
    try {
      for (let i = 0; i < 3; i++) await client.callTool({ name: "echo", arguments: {} });
      expect(validate.mock.calls.filter(([method]) => method === "tools/call").map(([, raw]) => raw === undefined)).toEqual([
        false,
        false,
        false,
      ]);
    } finally {
      validate.mockRestore();
    }
  });
});
