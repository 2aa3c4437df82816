import { EventSourceParserStream, type EventSourceMessage } from "eventsource-parser/stream";
import { eventually } from "./wait.js";

/** An execution as the wire shows it. */
export interface ExecutionBody {
  id: string;
  tool: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  progress?: { progress: number; total?: number; message?: string };
  result?: { output: string; isError: boolean };
  error?: { code: string; status: number; detail: string };
}

/** POSTs `body` to `/tools/{name}/executions`. */
export function submit(baseUrl: string, name: string, body: unknown = {}, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/tools/${name}/executions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/** GET `/executions/{id}` parsed (any status). */
export async function getExecution(baseUrl: string, id: string, headers: Record<string, string> = {}): Promise<{ status: number; body: ExecutionBody }> {
  const res = await fetch(`${baseUrl}/executions/${id}`, { headers });
  return { status: res.status, body: (await res.json()) as ExecutionBody };
}

/** Polls `/executions/{id}` until its status is one of `statuses`. */
export function pollUntil(baseUrl: string, id: string, statuses: string[], opts: { timeoutMs?: number; headers?: Record<string, string> } = {}): Promise<ExecutionBody> {
  return eventually(async () => {
    const { status, body } = await getExecution(baseUrl, id, opts.headers);
    return status === 200 && statuses.includes(body.status) ? body : undefined;
  }, { timeoutMs: opts.timeoutMs ?? 10_000, everyMs: 50 });
}

/** Opens `/executions/{id}/events` and collects every event until the server ends the stream; `onEvent` sees each as it arrives. */
export async function readEvents(
  baseUrl: string, id: string, headers: Record<string, string> = {}, onEvent?: (e: EventSourceMessage) => void,
): Promise<{ res: Response; events: EventSourceMessage[] }> {
  const res = await fetch(`${baseUrl}/executions/${id}/events`, { headers: { accept: "text/event-stream", ...headers } });
  const events: EventSourceMessage[] = [];
  if (res.status !== 200 || !res.body) return { res, events };
  const reader = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    events.push(value);
    onEvent?.(value);
  }
  return { res, events };
}
