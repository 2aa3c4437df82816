import Fastify from "fastify";
import { pino } from "pino";
import { describe, expect, it, vi } from "vitest";
import { redactingLogger, SecretScrubber } from "../../../src/server/observability/logger.js";
import { msText, writeInfoLine } from "../../../src/server/observability/info-line.js";
import { RequestLogger } from "../../../src/server/http/request-logger.js";

/** `fields` as the members writeInfoLine takes, written by JSON.stringify. */
const members = (fields: Record<string, unknown>) => {
  const json = JSON.stringify(fields);
  return { keys: Object.keys(fields), members: json.length > 2 ? `,${json.slice(1, -1)}` : "" };
};

/** Two loggers of one configuration, each writing to its own list of lines, with a fixed time. */
function pair(make: (dest: { write(line: string): void }) => pino.Logger): [pino.Logger, string[], pino.Logger, string[]] {
  const a: string[] = [];
  const b: string[] = [];
  return [make({ write: (l) => void a.push(l) }), a, make({ write: (l) => void b.push(l) }), b];
}

const LINES: Record<string, unknown>[] = [
  { tool: "echo", source: "plugin:echo", caller: "anonymous", transport: "rest", outcome: "ok", statusCode: 200, durationMs: 0.1 },
  {
    tool: "echo",
    source: undefined,
    caller: "k",
    auth: "apiKey",
    policy: "p",
    transport: "mcp",
    outcome: "rejected",
    statusCode: 404,
    pending: true,
    durationMs: 12,
    traceId: "ab".repeat(16),
  },
  {
    tool: 'we"ird\\name\u0001',
    source: "x".repeat(150),
    caller: "ü ✓",
    transport: "sse",
    outcome: "failed",
    statusCode: 500,
    durationMs: Number.NaN,
  },
];

describe("writeInfoLine", () => {
  it("writes the bytes pino writes for the same fields, through a request's child logger", () => {
    const time = () => ',"time":1733450000000';
    const [fast, fastLines, slow, slowLines] = pair((dest) =>
      redactingLogger(new SecretScrubber(["s3cret"]), { timestamp: time }, dest).child({ reqId: "req-1" }, {}),
    );
    for (const line of LINES) {
      expect(writeInfoLine(fast, members(line), "tool call")).toBe(true);
      slow.info(line, "tool call");
    }
    expect(fastLines).toEqual(slowLines);
  });

  it("writes the same bytes through a request's logger before its child exists, and makes none", () => {
    const time = () => ',"time":1733450000000';
    const [root, fastLines, slowRoot, slowLines] = pair((dest) =>
      redactingLogger(new SecretScrubber(["s3cret"]), { timestamp: time }, dest),
    );
    const fast = new RequestLogger(root, { reqId: 'req-"1' });
    const slow = slowRoot.child({ reqId: 'req-"1' }, {});
    for (const line of LINES) {
      expect(writeInfoLine(fast, members(line), "tool call")).toBe(true);
      slow.info(line, "tool call");
    }
    expect(fastLines).toEqual(slowLines);
    expect(fast.unbound).toBe(root);
  });

  it("quotes a request id known to be plain as it is: the same bytes as pino's", () => {
    const time = () => ',"time":1733450000000';
    const [root, fastLines, slowRoot, slowLines] = pair((dest) => redactingLogger(new SecretScrubber([]), { timestamp: time }, dest));
    const id = "0a1b2c3d-4e5f-8a6b-9c7d-1000002a.x:y_z";
    const fast = new RequestLogger(root, { reqId: id }, true);
    for (const line of LINES) {
      expect(writeInfoLine(fast, members(line), "tool call")).toBe(true);
      slowRoot.child({ reqId: id }, {}).info(line, "tool call");
    }
    expect(fastLines).toEqual(slowLines);
  });

  it("makes no child under the logger Fastify makes of the one it is given", () => {
    const time = () => ',"time":1733450000000';
    const [root, fastLines, slowRoot, slowLines] = pair(
      (dest) => Fastify({ loggerInstance: redactingLogger(new SecretScrubber(["s3cret"]), { timestamp: time }, dest) }).log as pino.Logger,
    );
    const fast = new RequestLogger(root, { reqId: "req-2" });
    for (const line of LINES) {
      expect(writeInfoLine(fast, members(line), "tool call")).toBe(true);
      slowRoot.child({ reqId: "req-2" }).info(line, "tool call");
    }
    expect(fastLines).toEqual(slowLines);
    expect(fast.unbound).toBe(root);
  });

  it("goes through the request's child when the root would bind the request id otherwise", () => {
    const [root, fastLines, slowRoot, slowLines] = pair((dest) =>
      pino({ timestamp: () => ',"time":1', formatters: { bindings: (b) => ({ ...b, extra: 1 }) } }, dest),
    );
    const fast = new RequestLogger(root, { reqId: "r" });
    expect(writeInfoLine(fast, members(LINES[0]!), "tool call")).toBe(true);
    slowRoot.child({ reqId: "r" }).info(LINES[0]!, "tool call");
    expect(fastLines).toEqual(slowLines);
    expect(fast.unbound).toBeUndefined();
  });

  it("leaves a line to pino when something of pino's would change it", () => {
    const dest = { write: () => undefined };
    expect(writeInfoLine(pino({ mixin: () => ({ x: 1 }) }, dest), members(LINES[0]!), "tool call")).toBe(false);
    expect(writeInfoLine(pino({ serializers: { tool: (t: string) => t } }, dest), members(LINES[0]!), "tool call")).toBe(false);
    expect(writeInfoLine(pino({ redact: ["caller"] }, dest), members(LINES[0]!), "tool call")).toBe(false);
    expect(writeInfoLine({ info: () => undefined }, members(LINES[0]!), "tool call")).toBe(false);
  });

  it("writes pino's default time, a new one each millisecond", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const [fast, fastLines, slow, slowLines] = pair((dest) => redactingLogger(new SecretScrubber([]), {}, dest));
      for (const ms of [1_733_450_000_000, 1_733_450_000_000, 1_733_450_000_001, 1_733_400_012_345, 1_733_400_012_345]) {
        vi.setSystemTime(ms);
        expect(writeInfoLine(fast, members(LINES[0]!), "tool call")).toBe(true);
        slow.info(LINES[0]!, "tool call");
      }
      expect(fastLines).toEqual(slowLines);
      expect(fastLines.map((l) => JSON.parse(l).time)).toEqual([
        1_733_450_000_000, 1_733_450_000_000, 1_733_450_000_001, 1_733_400_012_345, 1_733_400_012_345,
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("msText", () => {
  it("writes a time in milliseconds as String does, the low digits' zeros kept", () => {
    for (const ms of [0, 7, 999_999, 1_000_000, 1_000_007, 1_733_450_000_000, 1_733_400_012_345, 1_733_400_000_009, -5, 1.5, 2 ** 53 + 2]) {
      expect(msText(ms)).toBe(String(ms));
    }
  });
});
