import { writeFile } from "node:fs/promises";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../../helpers/server.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { eventually } from "../../helpers/wait.js";

// A client of a `discovery: search` bundle lists only search_tools and call_tool, yet what it
// can find changes with the catalog: it hears notifications/tools/list_changed when it does.

const plugin = (name: string, description: string) =>
  `export default { name: "${name}", description: "${description}", inputSchema: { type: "object", properties: {} }, run: () => "${name}" };\n`;

const config = (plugins: string[]) =>
  JSON.stringify({ plugins, bundles: { found: { tools: ["*"], discovery: "search" } }, server: { mcp: { discovery: "search" } } });

let s: TestServer;
let file: string;
beforeAll(async () => {
  const dir = await tempDir({
    "plugins/a.mjs": plugin("alpha_report", "Builds the alpha report"),
    "plugins/b.mjs": plugin("weather_forecast", "Forecasts the weather for a city"),
  });
  file = path.join(dir, "toolnexus.json");
  await writeFile(file, config(["./plugins/a.mjs"]));
  s = await startServer({ config: file, logger: false });
});
afterAll(async () => {
  await s?.close();
});

async function client(endpoint: string, era: "2026-07-28"): Promise<{ c: Client; heard: () => number; stop: () => Promise<unknown> }> {
  let heard = 0;
  const c = new Client({ name: "discovery-changes", version: "1.0.0" }, { versionNegotiation: { mode: { pin: era } } });
  c.setNotificationHandler("notifications/tools/list_changed", () => {
    heard++;
  });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${s.url}${endpoint}`)));
  // A 2026-07-28 client hears of changes on the subscriptions/listen stream it opens.
  const sub = await c.listen({ toolsListChanged: true });
  return { c, heard: () => heard, stop: () => sub.close() };
}

const found = async (c: Client, query: string) =>
  ((await c.callTool({ name: "search_tools", arguments: { query } })).structuredContent as { tools: { name: string }[] }).tools.map(
    (t) => t.name,
  );

describe("tools/list_changed on a discovery: search endpoint", () => {
  it("reaches a listening client of a bundle and of /mcp when the searchable set grows", async () => {
    const clients = await Promise.all([client("/bundles/found/mcp", "2026-07-28"), client("/mcp", "2026-07-28")]);
    try {
      for (const { c } of clients) {
        expect((await c.listTools()).tools.map((t) => t.name)).toEqual(["search_tools", "call_tool"]);
        expect(await found(c, "weather forecast")).not.toContain("weather_forecast");
      }
      for (const { heard } of clients) expect(heard()).toBe(0);
      await writeFile(file, config(["./plugins/a.mjs", "./plugins/b.mjs"]));
      expect(await s.app.toolnexus.reload()).toBe(true);
      for (const { heard } of clients) await eventually(() => heard() > 0, { timeoutMs: 5000 });
      for (const { c } of clients) {
        // Still the meta-tools: what changed is what they find.
        expect((await c.listTools()).tools.map((t) => t.name)).toEqual(["search_tools", "call_tool"]);
        expect((await found(c, "weather forecast"))[0]).toBe("weather_forecast");
      }
    } finally {
      await Promise.all(clients.map(async ({ c, stop }) => (await stop(), await c.close())));
    }
  });
});
