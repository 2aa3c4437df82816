import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { ServiceState } from "./service-state.js";

/** How a call ended; the `outcome` label of toolnexus_tool_calls_total. */
export type Outcome = "ok" | "tool_error" | "failed" | "timeout" | "cancelled" | "rejected";

/**
 * The Prometheus metrics of one server. A registry per server (not prom-client's global one)
 * so several servers in one process — tests, embedders — never collide.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly calls: Counter<"tool" | "source" | "outcome">;
  private readonly duration: Histogram<"tool" | "source">;
  private readonly inFlight: Gauge;
  private readonly children = new Map<string, { calls: { inc(): void }; duration: { observe(v: number): void } }>();

  constructor(state: ServiceState) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.calls = new Counter({ name: "toolnexus_tool_calls_total", help: "Tool calls by outcome", labelNames: ["tool", "source", "outcome"], registers });
    this.duration = new Histogram({
      name: "toolnexus_tool_duration_seconds", help: "Tool call duration", labelNames: ["tool", "source"], registers,
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    });
    this.inFlight = new Gauge({ name: "toolnexus_tool_calls_in_flight", help: "Tool calls running now", registers, collect() { this.set(state.inFlight); } });
    new Gauge({
      name: "toolnexus_source_up", help: "1 when a source is connected, else 0", labelNames: ["source", "name"], registers,
      collect() {
        this.reset();
        for (const s of state.peek()?.status() ?? []) this.set({ source: s.source, name: s.name }, s.state === "connected" ? 1 : 0);
      },
    });
  }

  /**
   * Records one call. `tool` is only a label for tools that exist: an unknown name in a
   * rejected call must not mint a new time series.
   */
  record(tool: string | undefined, source: string | undefined, outcome: Outcome, seconds: number): void {
    const t = tool ?? "(unknown)";
    const s = source ?? "(unknown)";
    // Labelled children are cached: resolving labels on every call shows up in the hot path.
    const key = `${t}\u0000${s}\u0000${outcome}`;
    let child = this.children.get(key);
    if (!child) {
      child = { calls: this.calls.labels(t, s, outcome), duration: this.duration.labels(t, s) };
      this.children.set(key, child);
    }
    child.calls.inc();
    if (outcome !== "rejected") child.duration.observe(seconds);
  }
}
