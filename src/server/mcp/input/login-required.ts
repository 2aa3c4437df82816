import { UrlElicitationRequiredError } from "@modelcontextprotocol/server";
import { pendingOf } from "../../../core/input/pending.js";
import type { ToolResult } from "../../../core/types.js";

/**
 * A call that waits for its caller to connect an upstream account (a pending of kind `login`,
 * docs/user-credentials.md) as a 2025-11-25 client is told: the URL-elicitation-required error
 * (-32042) naming the login link, after which the client retries the call. Any other result
 * goes on as it is. (A 2026 client gets an `input_required` URL elicitation instead.)
 */
export function legacyLoginRequired(result: ToolResult): ToolResult {
  const p = pendingOf(result);
  if (p?.kind !== "login" || !p.url) return result;
  throw new UrlElicitationRequiredError([{ mode: "url", message: p.prompt, url: p.url, elicitationId: p.id }], p.prompt);
}
