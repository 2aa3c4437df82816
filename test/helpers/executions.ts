import { EventSourceParserStream, type EventSourceMessage } from "eventsource-parser/stream";
import { expect } from "vitest";
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
export async function getExecution(
  baseUrl: string,
  id: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: ExecutionBody }> {
  const res = await fetch(`${baseUrl}/executions/${id}`, { headers });
  return { status: res.status, body: (await res.json()) as ExecutionBody };
}

/** Polls `/executions/{id}` until its status is one of `statuses`. */
export function pollUntil(
  baseUrl: string,
  id: string,
  statuses: string[],
  opts: { timeoutMs?: number; headers?: Record<string, string> } = {},
): Promise<ExecutionBody> {
  return eventually(
    async () => {
      const { status, body } = await getExecution(baseUrl, id, opts.headers);
      return status === 200 && statuses.includes(body.status) ? body : undefined;
    },
    { timeoutMs: opts.timeoutMs ?? 10_000, everyMs: 50 },
  );
}

/** Opens `/executions/{id}/events` and collects every event until the server ends the stream; `onEvent` sees each as it arrives. */
export async function readEvents(
  baseUrl: string,
  id: string,
  headers: Record<string, string> = {},
  onEvent?: (e: EventSourceMessage) => void,
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

/** The execution a 202 submission answered with (the test fails on any other status). */
export async function acceptedExecution(res: Response): Promise<ExecutionBody> {
  expect(res.status).toBe(202);
  return (await res.json()) as ExecutionBody;
}

/** Submits an `echo` per text and waits for each to succeed, one after the other; their ids. */
async function echoesToEnd(baseUrl: string, texts: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const text of texts) {
    const e = await acceptedExecution(await submit(baseUrl, "echo", { arguments: { text } }));
    await pollUntil(baseUrl, e.id, ["succeeded"]);
    ids.push(e.id);
  }
  return ids;
}

/**
 * What `executions.maxRetainedPerCaller` means, the same for every store: run against a
 * server with `maxRetainedPerCaller: 2`, `testTools()` and no executions of its caller yet.
 */
export const retentionChecks = {
  /** Past the cap, the executions that finished first are gone (404) and the list shows the rest. */
  async firstFinishedGoFirst(baseUrl: string): Promise<void> {
    const ids = await echoesToEnd(baseUrl, ["one", "two", "three"]);
    const gone = await fetch(`${baseUrl}/executions/${ids[0]}`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ code: "EXECUTION_NOT_FOUND" });
    const list = (await (await fetch(`${baseUrl}/executions`)).json()) as { executions: { id: string }[] };
    expect(list.executions.map((e) => e.id)).toEqual([ids[2], ids[1]]);
  },

  /** An execution submitted before the ones that filled the cap is kept when it finishes last. */
  async longRunKeptWhenItFinishes(baseUrl: string): Promise<void> {
    const long = await acceptedExecution(await submit(baseUrl, "slow", { arguments: { ms: 20_000 } }));
    const quick = await echoesToEnd(baseUrl, ["b", "c", "d"]);
    expect((await fetch(`${baseUrl}/executions/${long.id}/cancel`, { method: "POST" })).status).toBe(200);
    // It finished last, so it is the newest finished one: b and c (finished first) went.
    expect((await getExecution(baseUrl, long.id)).body.status).toBe("cancelled");
    expect((await fetch(`${baseUrl}/executions/${quick[0]}`)).status).toBe(404);
    expect((await fetch(`${baseUrl}/executions/${quick[1]}`)).status).toBe(404);
    expect((await fetch(`${baseUrl}/executions/${quick[2]}`)).status).toBe(200);
  },
};

/**
 * `GET /executions/{id}` with `Prefer: wait` (submitted on `submitUrl`, read on `waitUrl`):
 * answered once the execution has ended (its progress events do not end the wait), when it
 * asks for input, or as it is when the wait runs out; 404 for an unknown id. Needs the `steps`
 * tool (progress n times, then "did n") and testTools' `confirm` and `slow`.
 */
export async function longPollChecks(submitUrl: string, waitUrl: string, headers: Record<string, string> = {}): Promise<void> {
  const waitFor = (id: string, s: number) => fetch(`${waitUrl}/executions/${id}`, { headers: { ...headers, prefer: `wait=${s}` } });
  const steps = await acceptedExecution(await submit(submitUrl, "steps", { arguments: { n: 5 } }, headers));
  const ended = await waitFor(steps.id, 20);
  expect(ended.status).toBe(200);
  expect(await ended.json()).toMatchObject({ status: "succeeded", result: { output: "did 5", isError: false } });
  expect(ended.headers.get("retry-after")).toBeNull();

  const asks = await acceptedExecution(await submit(submitUrl, "confirm", { arguments: { what: "it" } }, headers));
  expect(await (await waitFor(asks.id, 20)).json()).toMatchObject({ status: "input_required" });

  const slow = await acceptedExecution(await submit(submitUrl, "slow", { arguments: { ms: 20_000 } }, headers));
  const held = await waitFor(slow.id, 1);
  expect(held.status).toBe(200);
  expect(held.headers.get("retry-after")).toBe("1");
  expect(["queued", "running"]).toContain(((await held.json()) as ExecutionBody).status);

  expect((await waitFor("0".repeat(32), 20)).status).toBe(404);
  for (const id of [asks.id, slow.id]) await fetch(`${submitUrl}/executions/${id}/cancel`, { method: "POST", headers });
}
