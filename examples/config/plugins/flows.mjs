// Example tools for the documented flows of docs/input-and-tasks.md: a caller's input, tasks.

/**
 * Asks its caller to approve before it "deletes" a file (nothing is deleted: it is an example).
 * Called as an execution it turns `input_required` with the question as an elicitation; the
 * answer (POST /executions/{id}/input) re-runs it with `ctx.answer`.
 */
const confirmDelete = {
  name: "confirm_delete",
  description: "Ask the caller to approve deleting `filename`, then say what was decided (deletes nothing: an example).",
  inputSchema: { type: "object", properties: { filename: { type: "string" } }, required: ["filename"], additionalProperties: false },
  run: ({ filename }, ctx) => {
    if (!ctx.answer) {
      return { output: `Delete ${filename}?`, isError: true, metadata: { pending: { id: `confirm-${filename}`, kind: "approval", prompt: `Delete ${filename}?` } } };
    }
    return ctx.answer.ok ? `Deleted ${filename}` : { output: `Kept ${filename}`, isError: true };
  },
};

/**
 * Long enough to become a task on /mcp (`taskSupport: "optional"`): a 2026-07-28 client that
 * declared the tasks extension gets a task when the call outlasts `server.mcp.taskAfterMs`,
 * and follows it with tasks/get (its progress the task's statusMessage) or stops it with
 * tasks/cancel. Over REST it is a plain call (stream it for the progress).
 */
const report = {
  name: "report",
  description: "Build a report on `topic` in `steps` steps, one a second, reporting progress. Runs as a task on /mcp. Honours cancellation.",
  inputSchema: {
    type: "object",
    properties: { topic: { type: "string" }, steps: { type: "integer", minimum: 1, maximum: 60, default: 3 } },
    required: ["topic"],
    additionalProperties: false,
  },
  taskSupport: "optional",
  async run({ topic, steps = 3 }, ctx) {
    for (let i = 1; i <= steps; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      ctx.signal?.throwIfAborted();
      ctx.onProgress?.({ progress: i, total: steps, message: `${topic}: step ${i} of ${steps}` });
    }
    return `report on ${topic}: ${steps} steps done`;
  },
};

export default [confirmDelete, report];
