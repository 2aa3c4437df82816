import { ToolnexusError } from "../../core/errors.js";

const ENVELOPE_KEYS = new Set(["arguments", "timeoutMs", "answer"]);

/**
 * A first-time caller often posts the tool's arguments bare (`{"text":"hi"}`) instead of
 * wrapped (`{"arguments":{"text":"hi"}}`). Names every stray key and says how to wrap them,
 * rather than the validator's "must NOT have additional properties". Undefined when the body
 * has no stray key (other envelope problems are left to schema validation).
 */
export function strayKeysError(body: unknown): ToolnexusError | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const stray = Object.keys(body).filter((k) => !ENVELOPE_KEYS.has(k));
  if (stray.length === 0) return undefined;
  const list = stray.map((k) => JSON.stringify(k)).join(", ");
  return new ToolnexusError("INVALID_REQUEST",
    `Unknown key${stray.length > 1 ? "s" : ""} ${list} in the request body, which holds only arguments, timeoutMs and answer: `
    + `put the tool's arguments inside "arguments", e.g. {"arguments": {${stray.map((k) => `${JSON.stringify(k)}: …`).join(", ")}}}`,
    { errors: stray.map((k) => ({ pointer: `/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`, message: "is not an envelope key; move it into arguments" })) });
}
