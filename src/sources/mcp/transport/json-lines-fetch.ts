import type { FetchLike } from "@modelcontextprotocol/client";

// Only between two top-level JSON values can a `}` and a `{` be separated by a line break
// alone: inside a value a comma comes between, and a string holds no raw line break.
const BETWEEN_VALUES = /\}\s*\n\s*\{/g;

/**
 * Reads an `application/json` answer that holds several JSON-RPC messages one per line (JSON
 * lines: a notification, then the result) as the JSON array the SDK accepts, instead of
 * failing the call on unparsable JSON. Some servers built on the 2026 revision's per-request
 * model stream a call's notifications this way (the conformance suite's reference server
 * among them). Any other answer is handed on untouched.
 */
export function jsonLinesFetch(fetch: FetchLike): FetchLike {
  return async (url, init) => {
    const res = await fetch(url, init);
    if (init?.method !== "POST" || !res.ok || !/^application\/json\b/i.test(res.headers.get("content-type") ?? "")) return res;
    const text = await res.text();
    BETWEEN_VALUES.lastIndex = 0;
    const body = BETWEEN_VALUES.test(text) ? `[${text.trim().replace(BETWEEN_VALUES, "},{")}]` : text;
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
