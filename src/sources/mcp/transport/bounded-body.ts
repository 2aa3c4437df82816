import type { FetchLike } from "@modelcontextprotocol/client";

/**
 * The most one MCP message from a remote server may hold, as over stdio (json-lines.ts): a
 * JSON answer past it, or one SSE event past it, errors the response body as the bytes arrive,
 * so a server answering with 100 MB is refused while the gateway holds at most this much of it.
 */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** Why a body was cut: the request it answered fails with this. */
export class MessageTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The server's answer was longer than ${limit} bytes and was dropped`);
    this.name = "MessageTooLargeError";
  }
}

/** `fetch` whose response bodies are bounded per message: the whole body for JSON, each event for SSE. */
export function boundedFetch(fetch: FetchLike, limit = MAX_MESSAGE_BYTES): FetchLike {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (!res.body) return res;
    const sse = (res.headers.get("content-type") ?? "").includes("text/event-stream");
    const body = res.body.pipeThrough(counter(limit, sse));
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

// Counts the bytes of the current message: since the start (JSON), or since the last blank line
// (SSE: "\n\n" or "\n\r\n" ends an event), found by jumping from newline to newline.
function counter(limit: number, sse: boolean): TransformStream<Uint8Array, Uint8Array> {
  let bytes = 0;
  // The last two bytes of the previous chunk, so a blank line split across chunks is still found.
  let prev = 0;
  let prev2 = 0;
  return new TransformStream({
    transform(chunk, controller) {
      if (!sse) bytes += chunk.length;
      else {
        const at = (k: number) => (k >= 0 ? (chunk[k] as number) : k === -1 ? prev : prev2);
        let end = -1;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1))
          if (at(i - 1) === 10 || (at(i - 1) === 13 && at(i - 2) === 10)) end = i;
        bytes = end === -1 ? bytes + chunk.length : chunk.length - end - 1;
        [prev2, prev] = [at(chunk.length - 2), at(chunk.length - 1)];
      }
      if (bytes > limit) controller.error(new MessageTooLargeError(limit));
      else controller.enqueue(chunk);
    },
  });
}
