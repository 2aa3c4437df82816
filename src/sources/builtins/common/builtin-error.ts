/**
 * A refusal or bad input the model can act on (escape attempt, missing file, hunk that does
 * not match). Becomes an `isError` result; any other throw is a bug and surfaces as 500.
 * In a file of its own so the workspace (which throws it) and tool.ts (which maps it) do not
 * import each other.
 */
export class BuiltinError extends Error {
  override readonly name = "BuiltinError";
}
