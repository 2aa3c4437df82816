import { ToolnexusError } from "../../core/errors.js";
import type { Answer } from "../../core/types.js";

/**
 * What a call carries besides the tool's name, whatever its transport: the body of
 * `POST /tools/{name}/execute` (the `ExecuteBody` wire schema), an MCP `tools/call`'s
 * arguments, an execution's stored request.
 */
export interface CallEnvelope {
  arguments?: Record<string, unknown>;
  /** Capped by `server.maxTimeoutMs` (or the transport's own bound). */
  timeoutMs?: number;
  /** The resolution of a suspension, on a resumed call. */
  answer?: Answer;
}

const ENVELOPE_KEYS = new Set(["arguments", "timeoutMs", "answer"]);

/**
 * A first-time caller often posts the tool's arguments bare (`{"text":"hi"}`) instead of
 * wrapped (`{"arguments":{"text":"hi"}}`). Names every stray key and says how to wrap them,
 * rather than the validator's "must NOT have additional properties". Undefined when the body
 * has no stray key (other envelope problems are left to schema validation).
 */
export function strayKeysError(body: unknown): ToolnexusError | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  // Most bodies hold envelope keys only: found so without the key list and its filter.
  let plain = true;
  for (const k in body)
    if (!ENVELOPE_KEYS.has(k)) {
      plain = false;
      break;
    }
  if (plain) return undefined;
  const stray = Object.keys(body).filter((k) => !ENVELOPE_KEYS.has(k));
  if (stray.length === 0) return undefined;
  const list = stray.map((k) => JSON.stringify(k)).join(", ");
  return new ToolnexusError(
    "INVALID_REQUEST",
    `Unknown key${stray.length > 1 ? "s" : ""} ${list} in the request body, which holds only arguments, timeoutMs and answer: ` +
      `put the tool's arguments inside "arguments", e.g. {"arguments": {${stray.map((k) => `${JSON.stringify(k)}: …`).join(", ")}}}`,
    {
      errors: stray.map((k) => ({
        pointer: `/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`,
        message: "is not an envelope key; move it into arguments",
      })),
    },
  );
}
