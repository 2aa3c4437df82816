// Example native tools. A plugin's default export may be a tool definition, a Tool,
// an array of them, or an async factory returning them.

/** Returns its input: the simplest possible tool. */
const echo = {
  name: "echo",
  description: "Return the text it is given.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
  run: ({ text }) => String(text),
};

/** Waits, and stops as soon as its call is cancelled (disconnect, timeout, shutdown). */
const sleep = {
  name: "sleep",
  description: "Wait for `ms` milliseconds, then say so. Honours cancellation.",
  inputSchema: { type: "object", properties: { ms: { type: "integer", minimum: 0, maximum: 600000 } }, required: ["ms"] },
  run: ({ ms }, ctx) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(`slept ${ms} ms`), ms);
    ctx.signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new Error("cancelled"));
    }, { once: true });
  }),
};

/** An outcome the model reads and can recover from: HTTP 200 with isError true. */
const divide = {
  name: "divide",
  description: "Divide a by b.",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  run: ({ a, b }) => (b === 0 ? { output: "Cannot divide by zero", isError: true } : String(a / b)),
};

/** Suspends until the caller answers: call again with `answer: { id, ok, data }`. */
const approve = {
  name: "approve",
  description: "Ask a human to approve an action. Suspends with a pending request; call again with the answer.",
  inputSchema: { type: "object", properties: { action: { type: "string" } }, required: ["action"] },
  run: ({ action }, ctx) => {
    if (!ctx.answer) {
      const id = `approve-${Buffer.from(String(action)).toString("base64url")}`;
      return { output: `Approval needed: ${action}`, isError: true, metadata: { pending: { id, kind: "approval", prompt: `Approve "${action}"?` } } };
    }
    return ctx.answer.ok ? `approved: ${action}` : { output: `declined: ${action}`, isError: true };
  },
};

/** Reports progress after each step: what a streamed call (Accept: text/event-stream) shows. */
const steps = {
  name: "steps",
  description: "Work through `count` steps, `everyMs` milliseconds each, reporting progress after each one. Honours cancellation.",
  inputSchema: {
    type: "object",
    properties: { count: { type: "integer", minimum: 1, maximum: 100 }, everyMs: { type: "integer", minimum: 0, maximum: 10000, default: 500 } },
    required: ["count"],
    additionalProperties: false,
  },
  async run({ count, everyMs = 500 }, ctx) {
    for (let i = 1; i <= count; i++) {
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      ctx.signal?.throwIfAborted();
      ctx.onProgress?.({ progress: i, total: count, message: `step ${i} of ${count}` });
    }
    return `${count} steps done`;
  },
};

export default [echo, sleep, divide, approve, steps];
