import type { Metric, MetricValueWithName, Registry } from "prom-client";

/** One label set's buckets (not cumulative: `counts[i]` is the values in (bound i-1, bound i]), sum and count. */
export interface DurationSeries {
  readonly labels: Record<string, string>;
  readonly counts: number[];
  sum: number;
  count: number;
  /** False until its first value, and again after a reset: only listed series are exported. */
  listed: boolean;
}

type Value = MetricValueWithName<string> & { sharedLabels?: Record<string, string>; exemplar?: null };

/**
 * A histogram whose label sets the caller resolves once and keeps ({@link series}), so that an
 * observation is a bucket search and two additions. prom-client's Histogram validates and
 * hashes the labels on every observation, also through a child from `labels()`: a few thousand
 * instructions per tool call (bench/history/2026-12-06-execute-path.md). What a scrape reads is
 * prom-client's own export, value for value: the registry formats both alike.
 */
export class DurationHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly listed: DurationSeries[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly upperBounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** A series for `labels`, empty and not exported until its first value. Keep it: each call makes a new one. */
  series(labels: Record<string, string>): DurationSeries {
    return { labels, counts: this.upperBounds.map(() => 0), sum: 0, count: 0, listed: false };
  }

  /** Records `value` in `s`. */
  observe(s: DurationSeries, value: number): void {
    // Exported in the order of first values, as prom-client does.
    if (!s.listed) {
      s.listed = true;
      this.listed.push(s);
    }
    const bounds = this.upperBounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    if (i < bounds.length) s.counts[i]!++;
    s.sum += value;
    s.count++;
  }

  /** The export the registry formats (prom-client's Histogram#getForPromString, same values in the same order). */
  getForPromString(): { name: string; help: string; type: "histogram"; values: Value[]; aggregator: "sum" } {
    const values: Value[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.listed) {
      let acc = 0;
      this.upperBounds.forEach((le, i) => {
        acc += s.counts[i]!;
        values.push({ labels: { le }, sharedLabels: s.labels, value: acc, metricName: bucket, exemplar: null });
      });
      values.push(
        { labels: { le: "+Inf" }, sharedLabels: s.labels, value: s.count, metricName: bucket, exemplar: null },
        { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum`, exemplar: undefined },
        { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count`, exemplar: undefined },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The export as JSON reads it: each value's labels with its series' labels. */
  get(): ReturnType<DurationHistogram["getForPromString"]> {
    const data = this.getForPromString();
    data.values = data.values.map(({ sharedLabels, labels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } }));
    return data;
  }

  /** Forgets every value (the registry's resetMetrics). */
  reset(): void {
    for (const s of this.listed) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
      s.listed = false;
    }
    this.listed.length = 0;
  }
}
