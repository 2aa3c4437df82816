import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { DurationHistogram, type DurationSeries } from "./duration-histogram.js";
import type { Toolkit } from "../../core/toolkit.js";

/** What the gauges read at each scrape (service/service-state.ts's ServiceState is one). */
export interface MetricsSource {
  /** Calls running now. */
  readonly inFlight: number;
  /** The toolkit when one is built, whatever the phase. */
  peek(): Pick<Toolkit, "status"> | undefined;
}

/** How a call ended; the `outcome` label of toolnexus_tool_calls_total. */
export type Outcome = "ok" | "tool_error" | "failed" | "timeout" | "cancelled" | "rejected";

/** One tool/source/outcome's calls not yet added to the counter, and its tool/source's durations. */
interface Children {
  labels: { tool: string; source: string; outcome: Outcome };
  pending: number;
  duration: DurationSeries;
}

/**
 * The Prometheus metrics of one server. A registry per server (not prom-client's global one)
 * so several servers in one process — tests, embedders — never collide.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly calls: Counter<"tool" | "source" | "outcome">;
  private readonly duration: DurationHistogram;
  private readonly inFlight: Gauge;
  // tool → source → outcome → labelled children. Nested maps keyed by the tool's own strings
  // (their hashes are cached) rather than one joined key, which cost a new string per call.
  private readonly children = new Map<string, Map<string, Map<Outcome, Children>>>();
  // Every label set in the order of its first call: the counter's series keep that order.
  private readonly counted: Children[] = [];
  // One duration series per tool/source, shared by its outcomes.
  private readonly durations = new Map<string, Map<string, DurationSeries>>();

  constructor(state: MetricsSource) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    const counted = this.counted;
    this.calls = new Counter({
      name: "toolnexus_tool_calls_total",
      help: "Tool calls by outcome",
      labelNames: ["tool", "source", "outcome"],
      registers,
      // Calls are counted in plain numbers and added here, when the counter is read: its inc()
      // validates and hashes the labels each time, a visible share of a fast call's cost.
      collect() {
        for (const c of counted) {
          if (c.pending === 0) continue;
          this.inc(c.labels, c.pending);
          c.pending = 0;
        }
      },
    });
    this.duration = new DurationHistogram(
      "toolnexus_tool_duration_seconds",
      "Tool call duration",
      [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      this.registry,
    );
    this.inFlight = new Gauge({
      name: "toolnexus_tool_calls_in_flight",
      help: "Tool calls running now",
      registers,
      collect() {
        this.set(state.inFlight);
      },
    });
    new Gauge({
      name: "toolnexus_source_up",
      help: "1 when a source is connected, else 0",
      labelNames: ["source", "name"],
      registers,
      collect() {
        this.reset();
        for (const s of state.peek()?.status() ?? []) this.set({ source: s.source, name: s.name }, s.state === "connected" ? 1 : 0);
      },
    });
  }

  /** Calls and failed calls (every outcome but `ok`) per tool since the start, busiest first (the console). */
  async perTool(): Promise<{ tool: string; calls: number; errors: number }[]> {
    const byTool = new Map<string, { tool: string; calls: number; errors: number }>();
    for (const { labels, value } of (await this.calls.get()).values) {
      const tool = String(labels.tool ?? "");
      const row = byTool.get(tool) ?? { tool, calls: 0, errors: 0 };
      row.calls += value;
      if (labels.outcome !== "ok") row.errors += value;
      byTool.set(tool, row);
    }
    return [...byTool.values()].sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool));
  }

  /**
   * Records one call. `tool` is only a label for tools that exist: an unknown name in a
   * rejected call must not mint a new time series.
   */
  record(tool: string | undefined, source: string | undefined, outcome: Outcome, seconds: number): void {
    const t = tool ?? "(unknown)";
    const s = source ?? "(unknown)";
    // Labelled children are cached: resolving labels on every call shows up in the hot path.
    let bySource = this.children.get(t);
    if (!bySource) this.children.set(t, (bySource = new Map()));
    let byOutcome = bySource.get(s);
    if (!byOutcome) bySource.set(s, (byOutcome = new Map()));
    let child = byOutcome.get(outcome);
    if (!child) {
      child = { labels: { tool: t, source: s, outcome }, pending: 0, duration: this.durationSeries(t, s) };
      byOutcome.set(outcome, child);
      this.counted.push(child);
    }
    child.pending++;
    if (outcome !== "rejected") this.duration.observe(child.duration, seconds);
  }

  private durationSeries(tool: string, source: string): DurationSeries {
    let bySource = this.durations.get(tool);
    if (!bySource) this.durations.set(tool, (bySource = new Map()));
    let series = bySource.get(source);
    if (!series) bySource.set(source, (series = this.duration.series({ tool, source })));
    return series;
  }
}
