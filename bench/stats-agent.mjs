// Preloaded into every server the benchmarks measure (`node --import ./bench/stats-agent.mjs`):
// answers an IPC "stats" message with the process's own CPU time, GC pauses and memory, so
// per-request CPU and GC share are read from the server itself, whatever else runs on the box.
import { PerformanceObserver, constants } from "node:perf_hooks";

const gc = { count: 0, ms: 0, scavenges: 0, maxScavengeMs: 0, majors: 0, maxMajorMs: 0 };
const YOUNG = constants.NODE_PERFORMANCE_GC_MINOR;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.count++;
    gc.ms += e.duration;
    if (e.detail?.kind === YOUNG) {
      gc.scavenges++;
      gc.maxScavengeMs = Math.max(gc.maxScavengeMs, e.duration);
    } else {
      gc.majors++;
      gc.maxMajorMs = Math.max(gc.maxMajorMs, e.duration);
    }
  }
}).observe({ entryTypes: ["gc"] });

process.on("message", (m) => {
  // "stats-gc": after a full collection (needs --expose-gc), so memory is what stays reachable.
  if (m === "stats-gc") globalThis.gc?.();
  if (m === "stats" || m === "stats-gc") {
    const cpu = process.cpuUsage();
    const mem = process.memoryUsage();
    process.send?.({
      stats: {
        cpuMs: (cpu.user + cpu.system) / 1000,
        gc: { ...gc },
        rss: mem.rss,
        heapUsed: mem.heapUsed,
        uptimeMs: process.uptime() * 1000,
      },
    });
  } else if (m === "reset-gc") {
    Object.assign(gc, { count: 0, ms: 0, scavenges: 0, maxScavengeMs: 0, majors: 0, maxMajorMs: 0 });
  }
});
// An IPC channel keeps a process alive: let the server's own handles decide.
process.channel?.unref();
