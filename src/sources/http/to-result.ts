import type { ToolResult } from "../../core/types.js";
import { tooLargeMessage, type InboundResponse } from "./send-request.js";

/** How a 2xx body becomes the output: as is, re-serialized JSON, or prefixed with its status. */
export type ResultMode = "text" | "json" | "status+text";

/**
 * Maps a response to a ToolResult: non-2xx ⇒ isError `HTTP <status>: <body>`;
 * 2xx ⇒ the body with `metadata.status`. `json` checks the body parses and returns it compact
 * (an empty body is `null`); `status+text` returns `HTTP <status>: <body>` for 2xx as well.
 */
export function toToolResult(res: InboundResponse, mode: ResultMode, maxResponseBytes: number): ToolResult {
  const metadata = { status: res.status };
  if (res.tooLarge) return { output: tooLargeMessage(res.status, maxResponseBytes), isError: true, metadata };
  if (res.status < 200 || res.status > 299) return { output: `HTTP ${res.status}: ${res.text}`, isError: true, metadata };
  if (mode === "status+text") return { output: `HTTP ${res.status}: ${res.text}`, isError: false, metadata };
  if (mode === "json") {
    if (res.text.trim() === "") return { output: "null", isError: false, metadata };
    try {
      return { output: JSON.stringify(JSON.parse(res.text)), isError: false, metadata };
    } catch {
      return { output: `HTTP ${res.status}: the response is not valid JSON: ${res.text.slice(0, 500)}`, isError: true, metadata };
    }
  }
  return { output: res.text, isError: false, metadata };
}

/** Replaces every secret (a `${VAR}` value used in this tool's headers) in `text`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join("[redacted]");
  return out;
}

/** The config secrets that occur in these header values: only they need scrubbing from outputs. */
export function headerSecrets(headers: Record<string, string> | undefined, secrets: readonly string[]): string[] {
  const values = Object.values(headers ?? {});
  // Short values are too likely to be ordinary words to scrub (same floor as the log redactor).
  return secrets.filter((s) => s.length >= 6 && values.some((v) => v.includes(s))).sort((a, b) => b.length - a.length);
}
