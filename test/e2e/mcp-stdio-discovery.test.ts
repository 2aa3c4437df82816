import path from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { CLI } from "../helpers/serve-process.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = path.resolve(import.meta.dirname, "../..");

// `toolnexus mcp` with server.mcp.discovery: search: the stdio transport unwraps call_tool too.
describe("toolnexus mcp (stdio) with discovery: search", () => {
  it.each(["2025", "2026"] as const)("a %s client finds echo with search_tools and runs it with call_tool", async (era) => {
    const dir = await tempDir({
      "toolnexus.yaml": [
        `plugins: [${JSON.stringify(path.join(root, "examples/config/plugins/*.mjs"))}]`,
        "server: { mcp: { discovery: search, alwaysList: [divide] } }",
      ].join("\n"),
    });
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--config", dir], stderr: "ignore" });
    const client = new Client(
      { name: "stdio-discovery-test", version: "1.0.0" },
      era === "2026" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : { supportedProtocolVersions: ["2025-11-25"] },
    );
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["search_tools", "call_tool", "divide"]);
      const search = await client.callTool({ name: "search_tools", arguments: { query: "echo text back" } });
      expect((search.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain("echo");
      expect(await client.callTool({ name: "call_tool", arguments: { name: "echo", arguments: { text: "over stdio" } } })).toMatchObject({
        content: [{ type: "text", text: "over stdio" }],
      });
      expect(await client.callTool({ name: "call_tool", arguments: { name: "call_tool" } })).toMatchObject({ isError: true });
    } finally {
      await client.close();
    }
  });
});
