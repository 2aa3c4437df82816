import type { FastifyBaseLogger } from "fastify";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Tool } from "../../../src/core/types.js";
import type { Caller } from "../../../src/server/auth/caller.js";
import { logCall, type CallEnd } from "../../../src/server/calls/call-record.js";
import type { CallOptions } from "../../../src/server/calls/call-context.js";
import { RequestLogger } from "../../../src/server/http/request-logger.js";
import { redactingLogger, SecretScrubber } from "../../../src/server/observability/logger.js";

const tool = (name: string, source: Tool["source"] = "native"): Tool => ({
  name,
  description: "",
  inputSchema: {},
  source,
  execute: async () => ({ output: "", isError: false }),
});
const caller = (id: string, extra: Partial<Caller> = {}): Caller => ({ id, viewKey: id, allows: () => true, ...extra });

// The ends and callers of calls, every optional field present and absent, strings JSON must escape.
const CALLS: [CallEnd, Caller, CallOptions["transport"]][] = [
  [
    { name: "echo", tool: tool("echo"), outcome: "ok", statusCode: 200, pending: false, durationMs: 0.1 },
    caller("anonymous", { kind: "anonymous" }),
    "rest",
  ],
  [
    {
      name: "fx_ask",
      tool: tool("fx_ask", "mcp"),
      outcome: "ok",
      statusCode: 202,
      pending: true,
      durationMs: 1234.5,
      traceId: "ab".repeat(16),
    },
    caller("key-1", { kind: "apiKey", allowedBy: () => "team-a" }),
    "mcp",
  ],
  [{ name: "nope/../x", outcome: "rejected", statusCode: 404, pending: false, durationMs: 0 }, caller("k"), "sse"],
  [
    {
      name: 'we"ird\\name\u0001',
      tool: tool('we"ird\\name\u0001', "http"),
      outcome: "failed",
      statusCode: 500,
      pending: false,
      durationMs: 12,
    },
    caller("ü ✓ \u2028", { kind: "jwt", allowedBy: () => 'p"1' }),
    "execution",
  ],
  [
    { name: "echo", tool: tool("echo"), outcome: "timeout", statusCode: 504, pending: false, durationMs: 0.04 },
    caller("anonymous"),
    "rest",
  ],
];

/** A logger of the service's configuration writing to `lines`, with a fixed time; `viaPino` leaves every line to pino. */
function logger(lines: string[], viaPino: boolean, time = () => ',"time":1'): FastifyBaseLogger {
  const identity = {
    logMethod(this: pino.Logger, args: Parameters<pino.LogFn>, method: pino.LogFn) {
      method.apply(this, args);
    },
  };
  const root = redactingLogger(
    new SecretScrubber(["s3cret"]),
    { timestamp: time, ...(viaPino ? { hooks: identity } : {}) },
    {
      write: (l) => void lines.push(l),
    },
  );
  return new RequestLogger(root, { reqId: "req-1" }) as unknown as FastifyBaseLogger;
}

describe("a call's log line", () => {
  it("is written with the bytes pino writes for the same fields", () => {
    const fast: string[] = [];
    const slow: string[] = [];
    // Twice each: the second line is written from the strings kept of the first.
    for (const round of [1, 2]) {
      for (const [end, who, transport] of CALLS) {
        logCall(end, { caller: who, requestId: `r${round}`, transport, log: logger(fast, false) });
        logCall(end, { caller: who, requestId: `r${round}`, transport, log: logger(slow, true) });
      }
    }
    expect(fast).toHaveLength(CALLS.length * 2);
    expect(fast).toEqual(slow);
    expect(JSON.parse(fast[1]!)).toMatchObject({ tool: "fx_ask", auth: "apiKey", policy: "team-a", pending: true, durationMs: 1234.5 });
  });

  it("keeps what a tool's lines repeat only while it is the same: caller, policy, transport, outcome, status, time", () => {
    const echo = tool("echo");
    const end = (outcome: CallEnd["outcome"], statusCode: number): CallEnd => ({
      name: "echo",
      tool: echo,
      outcome,
      statusCode,
      pending: false,
      durationMs: 2.5,
    });
    const a = caller("a", { kind: "apiKey", allowedBy: () => "team-a" });
    const b = caller("b", { kind: "apiKey", allowedBy: () => "team-b" });
    const bAsJwt = caller("b", { kind: "jwt", allowedBy: () => "team-b" });
    const bOtherPolicy = caller("b", { kind: "jwt", allowedBy: () => "team-c" });
    const steps: [CallEnd, Caller, CallOptions["transport"]][] = [
      [end("ok", 200), a, "rest"],
      [end("ok", 200), a, "rest"],
      [end("ok", 200), b, "rest"],
      [end("ok", 200), bAsJwt, "rest"],
      [end("ok", 200), bOtherPolicy, "rest"],
      [end("ok", 200), bOtherPolicy, "mcp"],
      [end("tool_error", 200), bOtherPolicy, "mcp"],
      [end("tool_error", 504), bOtherPolicy, "mcp"],
      [end("ok", 200), a, "rest"],
    ];
    const fast: string[] = [];
    const slow: string[] = [];
    let ms = 0;
    const time = () => `,"time":${Math.floor((ms - 1) / 2)}`; // a new time every other line
    for (const [e, who, transport] of steps) {
      ms++;
      logCall(e, { caller: who, requestId: "r", transport, log: logger(fast, false, time) });
      logCall(e, { caller: who, requestId: "r", transport, log: logger(slow, true, time) });
    }
    expect(fast).toEqual(slow);
    expect(new Set(fast).size).toBe(steps.length - 1); // only the second line repeats the first
  });

  it("is not built at logLevel warn", () => {
    const lines: string[] = [];
    const log = pino({ level: "warn" }, { write: (l: string) => void lines.push(l) });
    logCall(CALLS[0]![0], { caller: CALLS[0]![1], requestId: "r", transport: "rest", log });
    expect(lines).toEqual([]);
  });
});
