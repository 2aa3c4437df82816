import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createToolkit } from "../../../src/create-toolkit.js";
import { eventually, faultServer, fixtureLog, readEvents } from "./fixture.js";

/** pid → [state, ppid, pgid] of every live process, from /proc. */
function processTable(): Map<number, { state: string; ppid: number; pgid: number }> {
  const table = new Map<number, { state: string; ppid: number; pgid: number }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      table.set(Number(entry), { state: state ?? "?", ppid: Number(ppid), pgid: Number(pgid) });
    } catch {
      // exited while we looked
    }
  }
  return table;
}

describe.runIf(process.platform === "linux")("close()", () => {
  it("leaves no child or grandchild process of the service behind", async () => {
    const { log } = await fixtureLog();
    const tk = await createToolkit({
      mcpServers: {
        a: faultServer({ FIXTURE_LOG: log, SPAWN_GRANDCHILD: "1" }),
        b: faultServer({ FIXTURE_LOG: log }),
        stuck: faultServer({ FIXTURE_LOG: log, SLOW_INIT_MS: "60000" }, { timeout: 200 }),
      },
    });
    let closed = false;
    try {
      expect(tk.status().map((s) => s.state)).toEqual(["connected", "connected", "failed"]);
      const events = await eventually(
        async () => {
          const ev = await readEvents(log);
          return ev.some((e) => e.event === "grandchild") ? ev : undefined;
        },
        3000,
        "grandchild pid",
      );
      const leaders = [...new Set(events.filter((e) => e.event === "start").map((e) => e.pid))];
      const spawned = events.find((e) => e.event === "grandchild");
      const grandchild = spawned?.child as number;
      const before = processTable();
      // The grandchild shares its parent's process group, which the server's leader owns.
      expect(before.get(grandchild)?.pgid).toBe(spawned?.pid);
      expect([...before.values()].filter((p) => p.ppid === process.pid && p.state !== "Z").length).toBeGreaterThanOrEqual(2);

      await tk.close();
      closed = true;

      const after = processTable();
      const alive = (pid: number) => {
        const p = after.get(pid);
        return p !== undefined && p.state !== "Z";
      };
      // No child of ours at all (a zombie would mean an unreaped child); no member of any server's group alive.
      expect([...after.entries()].filter(([, p]) => p.ppid === process.pid).map(([pid]) => pid)).toEqual([]);
      expect([...leaders, grandchild].filter(alive)).toEqual([]);
      expect([...after.entries()].filter(([, p]) => leaders.includes(p.pgid) && p.state !== "Z").map(([pid]) => pid)).toEqual([]);
    } finally {
      // A failed assertion must not leak the servers into the rest of the run.
      if (!closed) await tk.close();
    }
  });

  it("does not reconnect after close", async () => {
    const { log } = await fixtureLog();
    const tk = await createToolkit({ mcpServers: { fx: faultServer({ FIXTURE_LOG: log }) } });
    const crash = tk.execute("fx_crash", {}, { timeout: 5000 }).catch((e: Error) => e);
    try {
      // Close while the source waits to reconnect (the first backoff delay is ≥ 50 ms).
      await eventually(() => tk.status()[0]?.state === "reconnecting" || undefined, 3000, "reconnecting");
    } finally {
      await tk.close();
    }
    expect(await crash).toMatchObject({ code: "UPSTREAM_UNAVAILABLE" });
    await new Promise((r) => setTimeout(r, 600));
    expect((await readEvents(log)).filter((e) => e.event === "start")).toHaveLength(1);
  });
});
