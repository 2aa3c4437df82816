import { createParser } from "eventsource-parser";
import { Agent, fetch, type Response } from "undici";

/** One server-sent event, its data parsed as JSON. */
export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
  id?: string;
}

/** An execute answered over a real socket, its body read as an event stream while it arrives. */
export interface StreamedCall {
  res: Response;
  /** Every event received so far. */
  events: SseEvent[];
  /** Every comment line received so far (`: ping` heartbeats). */
  comments: string[];
  /** Resolves with the first event (already received or still to come) matching `pred`. */
  waitFor(pred: (e: SseEvent) => boolean): Promise<SseEvent>;
  /** Resolves with every event once the server ended the stream. */
  done: Promise<SseEvent[]>;
  /** Closes the stream from the client side (drops the connection). */
  close(): void;
}

/**
 * POSTs `body` to `/tools/{name}/execute` with `Accept: text/event-stream` and reads the
 * body incrementally. A response that is not an event stream is returned with its body unread.
 */
export async function streamExecute(
  baseUrl: string,
  name: string,
  body: unknown = {},
  headers: Record<string, string> = {},
): Promise<StreamedCall> {
  const ac = new AbortController();
  // A connection pool of its own, destroyed with the stream: a client-side close leaves no
  // pooled socket behind that would hold the test server's close open.
  const agent = new Agent();
  const res = await fetch(`${baseUrl}/tools/${name}/execute`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
    body: JSON.stringify(body),
    signal: ac.signal,
    dispatcher: agent,
  });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waiters: { pred: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }[] = [];
  const parser = createParser({
    onEvent: (m) => {
      const e: SseEvent = {
        event: m.event ?? "message",
        data: JSON.parse(m.data) as Record<string, unknown>,
        ...(m.id ? { id: m.id } : {}),
      };
      events.push(e);
      for (const w of waiters.splice(0)) {
        if (w.pred(e)) w.resolve(e);
        else waiters.push(w);
      }
    },
    onComment: (c) => comments.push(c.trim()),
  });
  const streaming = res.headers.get("content-type")?.startsWith("text/event-stream") === true;
  const done =
    streaming && res.body
      ? (async () => {
          const decoder = new TextDecoder();
          for await (const chunk of res.body as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
          return events;
        })()
      : Promise.resolve(events);
  // Rejects when the client closes the stream on purpose. close() waits for an unread body.
  void done
    .catch(() => {})
    .then(() => agent.close())
    .catch(() => {});
  return {
    res,
    events,
    comments,
    done,
    close: () => {
      ac.abort();
      agent.destroy().catch(() => {});
    },
    waitFor: (pred) => {
      const seen = events.find(pred);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ pred, resolve }));
    },
  };
}
