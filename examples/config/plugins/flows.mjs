// Example tools for the documented flows that need a caller's input (docs/input-and-tasks.md).

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

export default [confirmDelete];
