import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { CLI } from "../helpers/serve-process.js";
import { tempDir } from "../helpers/temp-dir.js";

const SURFACE = fileURLToPath(new URL("../fixtures/mcp/surface-server.mjs", import.meta.url));

describe("resources and prompts over toolnexus mcp (stdio)", () => {
  it("serves two servers' same-named resource and prompt, each through its own name", async () => {
    const server = (who: string) =>
      `${who}: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(SURFACE)}], env: { SURFACE_NAME: ${who} } }`;
    const dir = await tempDir({ "toolnexus.yaml": `mcpServers: { ${server("alpha")}, ${server("beta")} }\n` });
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--config", dir], stderr: "pipe" });
    const client = new Client({ name: "surface-stdio-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
      expect(prompts).toEqual(["alpha_greet", "beta_greet"]);
      for (const who of ["alpha", "beta"]) {
        const read = await client.readResource({ uri: `${who}+file:///shared.txt` });
        expect(read.contents[0]).toMatchObject({ uri: `${who}+file:///shared.txt`, text: `shared of ${who}` });
        const got = await client.getPrompt({ name: `${who}_greet`, arguments: { name: "Ada" } });
        expect(got.messages[0]?.content).toEqual({ type: "text", text: `hello Ada from ${who}` });
      }
      await expect(client.readResource({ uri: "gamma+file:///shared.txt" })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  }, 60_000);
});
