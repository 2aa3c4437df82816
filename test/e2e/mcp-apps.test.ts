import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";

const APPS = fileURLToPath(new URL("../fixtures/mcp/apps-server.mjs", import.meta.url));
// The fixture's HTML, as it serves it (kept in step with apps-server.mjs).
const APP_HTML = '<!doctype html><html><body><h1 id="t">12:00</h1><script>document.title = "clock ✓";</script></body></html>\n';
type Json = Record<string, unknown>;

async function rpc(url: string, key: string, method: string, params: Json): Promise<Json> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-api-key": key },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const text = await res.text();
  return JSON.parse(text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "null")) as Json;
}

describe("an MCP Apps server (ext-apps) through the gateway", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({
      config: {
        mcpServers: { apps: { command: [process.execPath, APPS] } },
        auth: {
          apiKeys: [
            { id: "all", key: "k-all-1234567890", tools: ["*"] },
            { id: "plain", key: "k-plain-1234567890", tools: ["apps_plain"] },
          ],
        },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
  });

  it("hands on the tool's _meta.ui with the catalog's URI, and reads the app's HTML back byte for byte", async () => {
    const mcp = `${srv.url}/mcp`;
    const tools = (await rpc(mcp, "k-all-1234567890", "tools/list", {})).result as { tools: Json[] };
    const clock = tools.tools.find((t) => t.name === "apps_clock") as { _meta: { ui: { resourceUri: string } } };
    expect(clock._meta.ui.resourceUri).toBe("ui://apps+clock/app.html");
    const rest = (await (await fetch(`${srv.url}/tools/apps_clock`, { headers: { "x-api-key": "k-all-1234567890" } })).json()) as Json;
    expect(rest.metadata).toEqual({ _meta: expect.objectContaining({ ui: { resourceUri: "ui://apps+clock/app.html" } }) });
    const read = (await rpc(mcp, "k-all-1234567890", "resources/read", { uri: clock._meta.ui.resourceUri })).result as { contents: Json[] };
    expect(read.contents).toEqual([
      {
        uri: "ui://apps+clock/app.html",
        mimeType: "text/html;profile=mcp-app",
        text: APP_HTML,
        _meta: { ui: { csp: { resourceDomains: ["https://cdn.example.com"] }, prefersBorder: true } },
      },
    ]);
    expect(Buffer.from(read.contents[0]?.text as string).equals(Buffer.from(APP_HTML))).toBe(true);
  });

  it("answers a caller who may not use the app's tool as if the app did not exist", async () => {
    const mcp = `${srv.url}/mcp`;
    const listed = (await rpc(mcp, "k-plain-1234567890", "resources/list", {})).result as { resources: Json[] };
    expect(listed.resources.map((r) => r.uri)).not.toContain("ui://apps+clock/app.html");
    const hidden = (await rpc(mcp, "k-plain-1234567890", "resources/read", { uri: "ui://apps+clock/app.html" })).error as Json;
    const none = (await rpc(mcp, "k-plain-1234567890", "resources/read", { uri: "ui://apps+nothing/app.html" })).error as Json;
    expect(hidden.code).toBe(-32602);
    expect(none.code).toBe(-32602);
    expect(String(hidden.message).replace("clock", "nothing")).toBe(none.message);
  });
});
