import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { CLI } from "../helpers/serve-process.js";
import { tempDir } from "../helpers/temp-dir.js";
import { eventually } from "../helpers/wait.js";
import { FAULT_SERVER, fixtureLog, readEvents } from "../sources/mcp/fixture.js";

const root = path.resolve(import.meta.dirname, "../..");

// A plugin that writes to stdout from inside a call: it must not reach the protocol channel.
const NOISY_PLUGIN = `export default {
  name: "noisy", description: "Prints to stdout, then answers",
  inputSchema: { type: "object" },
  run: () => { console.log("noise from a plugin"); return "quiet answer"; },
};
`;

describe("toolnexus mcp (stdio)", () => {
  it("serves the catalog to an SDK client, with nothing but protocol on stdout", async () => {
    const { log } = await fixtureLog();
    const dir = await tempDir({
      "plugins/noisy.mjs": NOISY_PLUGIN,
      "skills/review/SKILL.md": "---\nname: review\ndescription: Review a pull request.\n---\nRead the diff first.\n",
      "toolnexus.yaml": [
        `plugins: [./plugins/noisy.mjs, ${JSON.stringify(path.join(root, "examples/config/plugins/*.mjs"))}]`,
        "skills: [./skills]",
        `mcpServers: { fx: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FAULT_SERVER)}], env: { FIXTURE_LOG: ${JSON.stringify(log)} } } }`,
      ].join("\n"),
    });
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--config", dir], stderr: "pipe" });
    let stderr = "";
    transport.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: "stdio-test", version: "1.0.0" });
    // A line on stdout that is not JSON-RPC surfaces here.
    const protocolErrors: Error[] = [];
    client.onerror = (err) => protocolErrors.push(err);
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["noisy", "echo", "divide", "skill", "fx_hang"]));
      expect(await client.callTool({ name: "echo", arguments: { text: "over stdio" } })).toEqual({
        content: [{ type: "text", text: "over stdio" }],
      });
      expect(await client.callTool({ name: "noisy", arguments: {} })).toEqual({ content: [{ type: "text", text: "quiet answer" }] });
      expect((await client.callTool({ name: "divide", arguments: { a: 1, b: 0 } })).isError).toBe(true);

      // The skills catalog as an MCP prompt.
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["skills"]);
      const prompt = await client.getPrompt({ name: "skills" });
      expect(JSON.stringify(prompt.messages)).toContain("review");

      // Cancelling a call reaches the upstream MCP server.
      const ac = new AbortController();
      const hang = client.callTool({ name: "fx_hang", arguments: {} }, undefined, { signal: ac.signal });
      await eventually(async () => (await readEvents(log)).some((e) => e.event === "call" && e.tool === "hang"));
      ac.abort("stop");
      await expect(hang).rejects.toThrow();
      const cancelled = await eventually(async () => (await readEvents(log)).find((e) => e.event === "cancelled"));
      expect(cancelled.reason).toMatch(/cancelled the call/);

      expect(protocolErrors).toEqual([]);
      // Logs went to stderr (a pipe apart from the protocol's, so maybe later): the per-call
      // line and the plugin's console.log.
      await expect.poll(() => stderr, { timeout: 5_000 }).toContain('"transport":"stdio"');
      await expect.poll(() => stderr, { timeout: 5_000 }).toContain("noise from a plugin");
    } finally {
      await client.close();
    }
  });
});

describe("toolnexus mcp (stdio) in the 2026-07-28 era", () => {
  it("answers server/discover and per-request calls from a pinned v2 SDK client", async () => {
    const dir = await tempDir({ "toolnexus.yaml": `plugins: [${JSON.stringify(path.join(root, "examples/config/plugins/*.mjs"))}]` });
    const client = new ModernClient({ name: "stdio-2026", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new ModernStdioTransport({ command: process.execPath, args: [CLI, "mcp", "--config", dir], stderr: "ignore" }));
    try {
      expect(client.getProtocolEra()).toBe("modern");
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo");
      expect(await client.callTool({ name: "echo", arguments: { text: "modern stdio" } })).toMatchObject({
        content: [{ type: "text", text: "modern stdio" }],
      });
    } finally {
      await client.close();
    }
  });
});
