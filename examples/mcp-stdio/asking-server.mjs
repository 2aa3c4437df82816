#!/usr/bin/env node
// An example MCP server over stdio (2025 era, SDK 1.x) whose tools ask their caller mid-call:
// `ask` sends elicitation/create, `ask_twice` two in a row, `sample` sampling/createMessage,
// `roots` roots/list. Each answers with what it received. Served as `asker_*` by
// examples/mcp-stdio/toolnexus.yaml (docs/input-and-tasks.md, "A call whose upstream asks").
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const text = { type: "object", properties: { message: { type: "string" } } };
const server = new Server({ name: "asker-example", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: ["ask", "ask_twice", "sample", "roots"].map((name) => ({ name, description: `asks the client (${name})`, inputSchema: text })),
}));

const elicit = (extra, message) =>
  extra.sendRequest(
    {
      method: "elicitation/create",
      params: { message, requestedSchema: { type: "object", properties: { response: { type: "string" } }, required: ["response"] } },
    },
    ElicitResultSchema,
  );

server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
  const message = String(req.params.arguments?.message ?? "What now?");
  const said = (v) => ({ content: [{ type: "text", text: JSON.stringify(v) }] });
  try {
    switch (req.params.name) {
      case "ask":
        return said(await elicit(extra, message));
      case "ask_twice": {
        const first = await elicit(extra, message);
        return said([first, await elicit(extra, `${message} (again)`)]);
      }
      case "sample":
        return said(
          await extra.sendRequest(
            { method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: message } }], maxTokens: 50 } },
            CreateMessageResultSchema,
          ),
        );
      default:
        return said(await extra.sendRequest({ method: "roots/list" }, ListRootsResultSchema));
    }
  } catch (err) {
    return { content: [{ type: "text", text: `failed: ${err.message}` }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
