import { describe, expect, it } from "vitest";
import { Toolkit } from "../../../src/core/toolkit.js";
import { buildServer } from "../../../src/server/build-server.js";
import { StaticSource } from "../../helpers/static-source.js";
import { startServer } from "../../helpers/server.js";
import { testTools, type SignalLog } from "../../helpers/tools.js";

describe("graceful shutdown", () => {
  it("turns readiness 503 at once, lets calls finish within the grace period, then aborts the rest", async () => {
    const log: SignalLog = {};
    const s = await startServer({ config: { server: { shutdownGraceMs: 300 } }, tools: testTools(log) });
    const post = (ms: number) =>
      fetch(`${s.url}/tools/slow/execute`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ arguments: { ms } }),
      });
    const quick = post(100);
    const long = post(10_000);
    while (s.app.toolnexus.state.inFlight < 2) await new Promise((r) => setTimeout(r, 5));

    const closing = s.app.toolnexus.shutdown();
    expect(s.app.toolnexus.state.phase).toBe("draining");

    const quickRes = await quick;
    expect(await quickRes.json()).toEqual({ output: "done", isError: false });
    expect(quickRes.headers.get("connection")).toBe("close");

    const longRes = await long;
    expect(longRes.status).toBe(503);
    expect(await longRes.json()).toMatchObject({ code: "NOT_READY", detail: "The server is shutting down" });
    expect(log.reason).toMatchObject({ code: "NOT_READY" });
    const late = await fetch(`${s.url}/tools/slow/execute`, { method: "POST" }).catch(() => undefined);
    if (late) expect(late.status).toBe(503);
    await closing;
    expect(s.logs.some((l) => l.msg === "tool call" && l.outcome === "cancelled")).toBe(true);
  });
});

describe("shutdown while sources are still loading", () => {
  it("does not wait past the grace period, and closes the toolkit when its load ends", async () => {
    let release!: (tk: Toolkit) => void;
    const later = new Promise<Toolkit>((r) => {
      release = r;
    });
    const app = await buildServer({ config: { server: { shutdownGraceMs: 100 } }, toolkit: later, logger: false });
    await app.ready();
    await app.close(); // resolves although the load has not finished
    expect(app.toolnexus.state.phase).toBe("draining");

    const source = new StaticSource("mcp", "slow", []);
    release(await Toolkit.create({ sources: [source] }));
    await app.toolnexus.ready;
    expect(source.closed).toBe(true);
  });
});
