import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../../helpers/server.js";
import { eventually, execute, faultServer, fixtureLog, readEvents } from "./fixture.js";

interface StatusBody {
  sources: { name: string; state: string; tools: number; error?: string }[];
}

describe("MCP source against a misbehaving server (REST)", () => {
  let srv: TestServer;
  let log: string;

  beforeAll(async () => {
    ({ log } = await fixtureLog());
    srv = await startServer({
      config: {
        mcpServers: {
          fx: faultServer({ FIXTURE_LOG: log }, { timeout: 5000 }),
          slow: faultServer({ SLOW_INIT_MS: "3000" }, { timeout: 300 }),
        },
      },
    });
  });
  afterAll(async () => {
    await srv?.close();
  });

  async function status(name: string) {
    const body = (await (await fetch(`${srv.url}/status`)).json()) as StatusBody;
    return body.sources.find((s) => s.name === name);
  }

  it("lists the tools of the healthy server and marks the slow one failed", async () => {
    const tools = (await (await fetch(`${srv.url}/tools?source=mcp`)).json()) as { tools: { name: string }[] };
    expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["fx_echo", "fx_hang", "fx_crash"]));
    expect(tools.tools.some((t) => t.name.startsWith("slow_"))).toBe(false);
    const slow = await status("slow");
    expect(slow?.state).toBe("failed");
    expect(slow?.error).toMatch(/initialize timed out after 300 ms/);
    expect((await status("fx"))?.state).toBe("connected");
  });

  it("answers an isError result with 200", async () => {
    const r = await execute(srv.url, "fx_fail");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ output: "it went wrong", isError: true });
  });

  it("answers 502 for a malformed result and stays connected", async () => {
    const r = await execute(srv.url, "fx_malformed");
    expect(r.status).toBe(502);
    expect(r.body.code).toBe("UPSTREAM_UNAVAILABLE");
    expect(r.body.detail).toMatch(/malformed result/);
    expect((await execute(srv.url, "fx_echo", { text: "ok" })).body.output).toBe("ok");
  });

  it("survives a non-JSON line on the server's stdout", async () => {
    const r = await execute(srv.url, "fx_garbage");
    expect(r.status).toBe(200);
    expect(r.body.output).toBe("still here");
  });

  it("answers 504 at the timeout and sends notifications/cancelled", async () => {
    const r = await execute(srv.url, "fx_hang", {}, 400);
    expect(r.status).toBe(504);
    expect(r.body.code).toBe("TOOL_TIMEOUT");
    const cancelled = await eventually(
      async () => (await readEvents(log)).find((e) => e.event === "cancelled"),
      3000,
      "notifications/cancelled",
    );
    expect(cancelled.reason).toMatch(/did not finish within 400 ms/);
  });

  it("refreshes the tools on tools/list_changed", async () => {
    const before = await (await fetch(`${srv.url}/tools/fx_late`)).status;
    expect(before).toBe(404);
    expect((await execute(srv.url, "fx_add_tool", { name: "late" })).status).toBe(200);
    await eventually(async () => (await fetch(`${srv.url}/tools/fx_late`)).status === 200 || undefined, 3000, "fx_late listed");
    expect((await status("fx"))?.tools).toBe(8);
  });

  it("fails calls in flight with 502 when the server crashes, then reconnects", async () => {
    const r = await execute(srv.url, "fx_crash", {}, 10_000);
    expect(r.status).toBe(502);
    expect(r.body.code).toBe("UPSTREAM_UNAVAILABLE");
    expect(r.ms).toBeLessThan(1000);
    // Tools stay listed during the outage.
    expect((await fetch(`${srv.url}/tools/fx_echo`)).status).toBe(200);
    const ok = await eventually(
      async () => {
        const e = await execute(srv.url, "fx_echo", { text: "back" });
        return e.status === 200 ? e : undefined;
      },
      5000,
      "a successful call after the crash",
    );
    expect(ok.body.output).toBe("back");
    expect((await status("fx"))?.state).toBe("connected");
    const starts = (await readEvents(log)).filter((e) => e.event === "start");
    expect(new Set(starts.map((s) => s.pid)).size).toBe(2);
  });
});
