import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startServer } from "../../helpers/server.js";
import { eventually, execute, faultServer, fixtureLog, readEvents } from "./fixture.js";

interface StatusBody {
  sources: { name: string; state: string; tools: number; error?: string }[];
}

describe("an MCP server that stays down after a crash", () => {
  it("is reconnecting, keeps its tools, answers 502 until it is back, then recovers", async () => {
    const { dir, log } = await fixtureLog();
    const block = path.join(dir, "down");
    const srv = await startServer({ config: { mcpServers: { fx: faultServer({ FIXTURE_LOG: log, FAIL_START_IF_EXISTS: block }) } } });
    try {
      await writeFile(block, "");
      expect((await execute(srv.url, "fx_crash", {}, 10_000)).status).toBe(502);
      // Several respawns fail while the block file exists.
      await eventually(
        async () => (await readEvents(log)).filter((e) => e.event === "refused-start").length >= 2 || undefined,
        10_000,
        "failed respawns",
      );
      const fx = ((await (await fetch(`${srv.url}/status`)).json()) as StatusBody).sources.find((s) => s.name === "fx");
      expect(fx).toMatchObject({ state: "reconnecting", tools: 7 });
      const during = await execute(srv.url, "fx_echo", { text: "x" });
      expect(during.status).toBe(502);
      expect(during.body.detail).toMatch(/reconnecting/);
      expect((await fetch(`${srv.url}/tools/fx_echo`)).status).toBe(200);

      await rm(block);
      const back = await eventually(
        async () => {
          const r = await execute(srv.url, "fx_echo", { text: "back" });
          return r.status === 200 ? r : undefined;
        },
        10_000,
        "recovery",
      );
      expect(back.body.output).toBe("back");
      // Backoff: the failed respawns are spaced out, each gap at least half the previous step.
      const refused = (await readEvents(log)).filter((e) => e.event === "refused-start").map((e) => e.at);
      const gaps = refused.slice(1).map((t, i) => t - (refused[i] as number));
      expect(gaps.every((g, i) => i === 0 || g >= (gaps[i - 1] as number) / 2 - 50)).toBe(true);
    } finally {
      await srv.close();
    }
  });
});
