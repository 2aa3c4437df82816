import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { CLI } from "../helpers/serve-process.js";
import { tempDir } from "../helpers/temp-dir.js";
import { eventually } from "../helpers/wait.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/mcp/subscribe-server.mjs", import.meta.url));

describe("resources/subscribe over toolnexus mcp (a 2025 stdio session)", () => {
  it("delivers updates of a subscribed URI and list changes, and unsubscribing stops both delivery and the upstream subscription", async () => {
    const server = `old: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FIXTURE)}], protocolVersion: "2025-11-25" }`;
    const dir = await tempDir({ "toolnexus.yaml": `mcpServers: { ${server} }\n` });
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--config", dir], stderr: "pipe" });
    const client = new Client({ name: "subscribe-stdio-test", version: "1.0.0" }, { supportedProtocolVersions: ["2025-11-25"] });
    const updated: string[] = [];
    let listChanged = 0;
    client.setNotificationHandler("notifications/resources/updated", (n) => void updated.push(n.params.uri));
    client.setNotificationHandler("notifications/resources/list_changed", () => void listChanged++);
    await client.connect(transport);
    const text = async (name: string) => ((await client.callTool({ name, arguments: {} })).content as { text: string }[])[0]?.text;
    try {
      expect(client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true });
      const uri = "old+file:///watched.txt";
      await client.subscribeResource({ uri });
      await eventually(async () => (await text("old_subscriptions")) === '["file:///watched.txt"]');
      await text("old_touch");
      await eventually(() => updated.length === 1);
      expect(updated).toEqual([uri]);

      await text("old_add_resource");
      await eventually(() => listChanged > 0, { timeoutMs: 10_000 });

      await client.unsubscribeResource({ uri });
      await eventually(async () => (await text("old_subscriptions")) === "[]");
      await text("old_touch");
      // The upstream announces its updates before answering the call; one more call makes sure none came after.
      await text("old_subscriptions");
      expect(updated).toEqual([uri]);

      await expect(client.subscribeResource({ uri: "gone+file:///watched.txt" })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  }, 60_000);

  it("holds the resources of a 2026 subscriptions/listen until it closes, and refuses one naming a URI that does not exist", async () => {
    const server = `old: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FIXTURE)}], protocolVersion: "2025-11-25" }`;
    const dir = await tempDir({ "toolnexus.yaml": `mcpServers: { ${server} }\n` });
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--config", dir], stderr: "pipe" });
    const client = new Client({ name: "listen-stdio-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    const updated: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (n) => void updated.push(n.params.uri));
    await client.connect(transport);
    const text = async (name: string) => ((await client.callTool({ name, arguments: {} })).content as { text: string }[])[0]?.text;
    try {
      expect(client.getProtocolEra()).toBe("modern");
      const uri = "old+file:///watched.txt";
      const sub = await client.listen({ resourceSubscriptions: [uri] });
      expect(sub.honoredFilter).toEqual({ resourceSubscriptions: [uri] });
      await eventually(async () => (await text("old_subscriptions")) === '["file:///watched.txt"]');
      await text("old_touch");
      await eventually(() => updated.includes(uri));
      await sub.close();
      await eventually(async () => (await text("old_subscriptions")) === "[]");
      await expect(client.listen({ resourceSubscriptions: ["gone+file:///watched.txt"] })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringMatching(/Resource not found/),
      });
    } finally {
      await client.close();
    }
  }, 60_000);
});
