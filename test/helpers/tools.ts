import { defineTool } from "../../src/core/define-tool.js";
import { upstreamUnavailable } from "../../src/core/errors.js";
import { pending } from "../../src/core/input/pending.js";
import type { Tool, ToolContext } from "../../src/core/types.js";

/** What the slow tool saw: when its signal aborted, and why. */
export interface SignalLog {
  startedAt?: number;
  abortedAt?: number;
  reason?: unknown;
  stubbornDone?: boolean;
}

/** Host tools exercising every outcome of the execute pipeline. */
export function testTools(log: SignalLog = {}): Tool[] {
  const failing: Tool = {
    name: "explode",
    description: "throws: our code failed",
    inputSchema: { type: "object" },
    source: "custom",
    execute: async () => {
      throw new Error("database password=hunter2 rejected");
    },
  };
  const upstream: Tool = {
    name: "unreachable",
    description: "its upstream is down",
    inputSchema: { type: "object" },
    source: "custom",
    execute: async () => {
      throw upstreamUnavailable("upstream 127.0.0.1:9 refused the connection");
    },
  };
  return [
    failing,
    upstream,
    defineTool({
      name: "echo",
      description: "echo text",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
      run: ({ text }) => String(text),
    }),
    defineTool({
      name: "divide",
      description: "a/b",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
      run: ({ a, b }) => (b === 0 ? { output: "Cannot divide by zero", isError: true } : String(Number(a) / Number(b))),
    }),
    defineTool({
      name: "slow",
      description: "waits ms, honouring the signal",
      inputSchema: { type: "object", properties: { ms: { type: "integer" } } },
      run: ({ ms }, ctx: ToolContext) =>
        new Promise<string>((resolve) => {
          log.startedAt = performance.now();
          const t = setTimeout(() => resolve("done"), Number(ms ?? 10_000));
          ctx.signal?.addEventListener(
            "abort",
            () => {
              log.abortedAt = performance.now();
              log.reason = ctx.signal?.reason;
              clearTimeout(t);
              resolve("stopped");
            },
            { once: true },
          );
        }),
    }),
    defineTool({
      name: "stubborn",
      description: "ignores its signal",
      inputSchema: { type: "object" },
      run: () =>
        new Promise<string>((resolve) =>
          setTimeout(() => {
            log.stubbornDone = true;
            resolve("late");
          }, 1500),
        ),
    }),
    defineTool({
      name: "confirm",
      description: "suspends until answered",
      inputSchema: { type: "object", properties: { what: { type: "string" } } },
      run: ({ what }, ctx) => {
        if (!ctx.answer) return pending({ id: `confirm-${String(what)}`, kind: "approval", prompt: `Confirm ${String(what)}?` });
        return ctx.answer.ok
          ? `confirmed ${String(what)} with ${JSON.stringify(ctx.answer.data ?? {})}`
          : { output: "declined", isError: true };
      },
    }),
  ];
}
