import { describe, expect, it } from "vitest";
import { startServer } from "../helpers/server.js";
import { eventually, execute } from "../sources/mcp/fixture.js";
import { startV2HttpServer } from "../fixtures/mcp/v2-http-server.js";

interface StatusBody {
  sources: { name: string; state: string; tools: number; protocolVersion?: string }[];
}

describe("a 2026-07-28 server over HTTP that goes away", () => {
  it("is reconnecting once its listen stream cannot be re-opened, keeps its tools, and recovers on the same revision", async () => {
    let upstream = await startV2HttpServer("reject");
    const port = Number(new URL(upstream.url).port);
    const srv = await startServer({ config: { mcpServers: { up: { url: upstream.url, timeout: 1000 } } } });
    const state = async () => ((await (await fetch(`${srv.url}/status`)).json()) as StatusBody).sources.find((s) => s.name === "up");
    try {
      expect(await state()).toMatchObject({ state: "connected", tools: 7, protocolVersion: "2026-07-28" });
      await upstream.close();
      // No call is needed: the dropped subscriptions/listen stream tells the source.
      await eventually(async () => ((await state())?.state === "reconnecting" ? true : undefined), 10_000, "reconnecting");
      expect((await state())?.tools).toBe(7);
      expect((await execute(srv.url, "up_echo", { message: "x" })).status).toBe(502);

      upstream = await startV2HttpServer("reject", port);
      const back = await eventually(
        async () => {
          const r = await execute(srv.url, "up_echo", { message: "back" });
          return r.status === 200 ? r : undefined;
        },
        15_000,
        "recovery",
      );
      expect(back.body.output).toBe("modern: back");
      expect(await state()).toMatchObject({ state: "connected", protocolVersion: "2026-07-28" });
    } finally {
      await srv.close();
      await upstream.close();
    }
  });
});
