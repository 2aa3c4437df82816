import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/serve-process.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = path.resolve(import.meta.dirname, "../..");
type Json = Record<string, unknown>;
const textOf = (r: Json): string => ((r.content as { text: string }[])[0] ?? { text: "" }).text;

/** `toolnexus mcp` with a 2025 upstream that asks mid-call and a native tool that asks twice. */
async function stdioClient(capabilities: Json): Promise<Client> {
  const dir = await tempDir({
    "toolnexus.yaml": [
      `plugins: [${JSON.stringify(path.join(root, "test/fixtures/plugins/pending-rounds.mjs"))}]`,
      `mcpServers: { asker: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(path.join(root, "test/fixtures/mcp/asking-server.mjs"))}] } }`,
    ].join("\n"),
  });
  const client = new Client({ name: "stdio-ask", version: "1.0.0" }, { capabilities });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--config", dir], stderr: "ignore" }));
  return client;
}

describe("toolnexus mcp (stdio): questions reach a 2025 client that declared the capability", () => {
  let asking: Client;
  let elicitOnly: Client;
  const asked: Json[] = [];
  beforeAll(async () => {
    asking = await stdioClient({ elicitation: {}, sampling: {} });
    asking.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params as Json);
      const schema = (req.params as { requestedSchema?: { properties?: Record<string, unknown> } }).requestedSchema;
      const field = Object.keys(schema?.properties ?? { response: {} })[0] as string;
      return { action: "accept", content: { [field]: field === "response" ? "blue" : field === "q1" ? "red" : true } };
    });
    asking.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: "assistant",
      content: { type: "text", text: "Paris" },
      model: "test-model",
    }));
    elicitOnly = await stdioClient({ elicitation: {} });
    elicitOnly.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { response: "green" } }));
  });
  afterAll(async () => {
    await asking?.close();
    await elicitOnly?.close();
  });

  it("an upstream's elicitation/create and sampling/createMessage: answered by the client, the call completes", async () => {
    const result = (await asking.callTool({ name: "asker_ask", arguments: { message: "Favourite colour?" } })) as Json;
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({ action: "accept", content: { response: "blue" } });
    expect(asked).toContainEqual(expect.objectContaining({ message: "Favourite colour?" }));
    const sampled = (await asking.callTool({ name: "asker_sample", arguments: { message: "Capital of France?" } })) as Json;
    expect(JSON.parse(textOf(sampled))).toMatchObject({ model: "test-model", content: { text: "Paris" } });
  });

  it("a request the client did not declare is refused to the upstream, and leaves no call in flight", async () => {
    const refused = (await elicitOnly.callTool({ name: "asker_sample", arguments: {} })) as Json;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/Method not found/);
    // The next call's question is routed: nothing of the refused call was left behind.
    const next = (await elicitOnly.callTool({ name: "asker_ask", arguments: {} })) as Json;
    expect(JSON.parse(textOf(next))).toEqual({ action: "accept", content: { response: "green" } });
  });

  it("a native tool's pendings become elicitation/create requests; the answers complete the call", async () => {
    const before = asked.length;
    const result = (await asking.callTool({ name: "two_rounds", arguments: {} })) as Json;
    expect(asked.length - before).toBe(2);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("colour=red, sure=true");
  });
});
