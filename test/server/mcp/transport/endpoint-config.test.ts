import { describe, expect, it } from "vitest";
import { startServer } from "../../../helpers/server.js";
import { testTools } from "../../../helpers/tools.js";

const ping = {
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
  body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
};

describe("server.mcp config", () => {
  it("serves /mcp by default, at another path when configured, and not at all when disabled", async () => {
    const byDefault = await startServer({ tools: testTools() });
    const moved = await startServer({
      tools: testTools(),
      config: { server: { mcp: { enabled: true, path: "/agents/mcp", pageSize: 500, taskAfterMs: 1000 } } },
    });
    const off = await startServer({
      tools: testTools(),
      config: { server: { mcp: { enabled: false, path: "/mcp", pageSize: 500, taskAfterMs: 1000 } } },
    });
    try {
      expect(await (await fetch(`${byDefault.url}/mcp`, ping)).json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
      expect((await fetch(`${moved.url}/agents/mcp`, ping)).status).toBe(200);
      expect((await fetch(`${moved.url}/mcp`, ping)).status).toBe(404);
      expect((await fetch(`${off.url}/mcp`, ping)).status).toBe(404);
    } finally {
      await Promise.all([byDefault.close(), moved.close(), off.close()]);
    }
  });
});
