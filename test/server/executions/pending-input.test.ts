import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { acceptedExecution, pollUntil, readEvents, submit, type ExecutionBody } from "../../helpers/executions.js";
import { startCluster, type ClusterSet } from "../../helpers/redis-ha.js";
import { startServer, type TestServer } from "../../helpers/server.js";

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/plugins");
// Native tools that end in "input required": confirm_delete (a plain pending), multi_input (two
// elicitations of its own), two_rounds (a question, then an approval).
const PLUGINS = [path.join(fixtures, "conformance-tasks.mjs"), path.join(fixtures, "pending-rounds.mjs")];
const KEY_A = "key-a-0123456789abcdef";
const KEY_B = "key-b-0123456789abcdef";
const A = { authorization: `Bearer ${KEY_A}` };
const B = { authorization: `Bearer ${KEY_B}` };

type Request = { method: string; params: Record<string, unknown> };
type Waiting = ExecutionBody & { inputRequests?: Record<string, Request> };

const config = (extra: Record<string, unknown> = {}) => ({
  auth: {
    apiKeys: [
      { id: "a", key: KEY_A },
      { id: "b", key: KEY_B },
    ],
  },
  plugins: PLUGINS,
  ...extra,
});

function answer(url: string, id: string, inputResponses: unknown, headers = A): Promise<Response> {
  return fetch(`${url}/executions/${id}/input`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ inputResponses }),
  });
}

async function waiting(url: string, tool: string, args: Record<string, unknown> = {}): Promise<Waiting> {
  const e = await acceptedExecution(await submit(url, tool, { arguments: args }, A));
  return (await pollUntil(url, e.id, ["input_required"], { headers: A })) as Waiting;
}

const accept = (content: Record<string, unknown>) => ({ action: "accept", content });

/** The REST side of a native tool's pending inside an execution, on one store or two replicas sharing one. */
function suite(name: string, start: () => Promise<[TestServer, TestServer]>) {
  describe(name, () => {
    let one: TestServer;
    let two: TestServer;
    beforeAll(async () => {
      [one, two] = await start();
    });
    afterAll(() => Promise.all([one?.close(), two !== one ? two?.close() : undefined]));

    it("a pending holds the execution input_required as a form elicitation; the owner's answer re-runs the tool with it", async () => {
      const asked = await waiting(one.url, "confirm_delete", { filename: "a.txt" });
      expect(asked.inputRequests).toEqual({
        input: {
          method: "elicitation/create",
          params: { mode: "form", message: "Delete a.txt?", requestedSchema: { type: "object", properties: {} } },
        },
      });
      // Another caller's answer: as absent as an unknown execution.
      expect((await answer(two.url, asked.id, { input: accept({}) }, B)).status).toBe(404);
      // An ElicitResult without a valid action, and keys that differ: nothing reaches the tool.
      const bad = await answer(two.url, asked.id, { input: { action: "maybe" } });
      expect(bad.status).toBe(422);
      expect(await bad.json()).toMatchObject({ code: "INVALID_INPUT_RESPONSES", errors: [{ pointer: "/inputResponses/input/action" }] });
      expect((await answer(two.url, asked.id, { other: accept({}) })).status).toBe(422);
      const ok = await answer(two.url, asked.id, { input: accept({ confirm: true }) });
      expect(ok.status).toBe(200);
      const done = await pollUntil(one.url, asked.id, ["succeeded", "failed"], { headers: A });
      expect(done).toMatchObject({ status: "succeeded", result: { output: "Deleted a.txt", isError: false } });
      // Finished: it waits on nothing.
      const late = await answer(two.url, asked.id, { input: accept({}) });
      expect(late.status).toBe(409);
      expect(await late.json()).toMatchObject({ code: "EXECUTION_NOT_WAITING" });
    });

    it("a tool's own input requests travel as they are; answers that fail the requested schema are refused", async () => {
      const asked = await waiting(one.url, "multi_input");
      expect(Object.keys(asked.inputRequests ?? {}).sort()).toEqual(["confirm", "name"]);
      expect(asked.inputRequests?.name).toMatchObject({ method: "elicitation/create", params: { message: "Your name?" } });
      const wrong = await answer(two.url, asked.id, { name: accept({ name: "Ada" }), confirm: accept({ confirm: "yes" }) });
      expect(wrong.status).toBe(422);
      expect(await wrong.json()).toMatchObject({
        code: "INVALID_INPUT_RESPONSES",
        errors: [{ pointer: "/inputResponses/confirm/content/confirm" }],
      });
      const missing = await answer(two.url, asked.id, { name: accept({}) });
      expect(missing.status).toBe(422);
      expect((await answer(two.url, asked.id, { name: accept({ name: "Ada" }), confirm: accept({ confirm: true }) })).status).toBe(200);
      const done = await pollUntil(one.url, asked.id, ["succeeded", "failed"], { headers: A });
      expect(done.result?.output).toBe("name=Ada, confirm=true");
    });

    it("asks as many rounds as the tool does, each on the events stream", async () => {
      const e = await acceptedExecution(await submit(one.url, "two_rounds", {}, A));
      const events = readEvents(two.url, e.id, A);
      const first = (await pollUntil(one.url, e.id, ["input_required"], { headers: A })) as Waiting;
      expect(first.inputRequests?.input?.params.requestedSchema).toEqual({
        type: "object",
        properties: { q1: { type: "string", title: "Colour?", enum: ["red", "blue"] } },
        required: ["q1"],
      });
      expect((await answer(two.url, e.id, { input: accept({ q1: "green" }) })).status).toBe(422);
      expect((await answer(two.url, e.id, { input: accept({ q1: "blue" }) })).status).toBe(200);
      // The answer turned it running before the 200: the next input_required is the second question.
      const second = (await pollUntil(two.url, e.id, ["input_required"], { headers: A })) as Waiting;
      expect(second.inputRequests?.input?.params).toMatchObject({ mode: "form", message: "Sure about blue?" });
      expect((await answer(one.url, e.id, { input: { action: "decline" } })).status).toBe(200);
      const done = await pollUntil(one.url, e.id, ["succeeded", "failed"], { headers: A });
      expect(done.result?.output).toBe("colour=blue, sure=false");
      expect((await events).events.map((x) => x.event)).toEqual(["execution", "input_required", "input_required", "result"]);
    });

    it("a cancel while it waits between two rounds ends it cancelled, on either replica", async () => {
      const e = await acceptedExecution(await submit(one.url, "two_rounds", {}, A));
      await pollUntil(one.url, e.id, ["input_required"], { headers: A });
      expect((await answer(two.url, e.id, { input: accept({ q1: "red" }) })).status).toBe(200);
      // The second round's question: the call is between its two runs, waiting on the owner.
      await pollUntil(two.url, e.id, ["input_required"], { headers: A });
      const res = await fetch(`${two.url}/executions/${e.id}/cancel`, { method: "POST", headers: A });
      expect(res.status).toBe(200);
      const done = await pollUntil(one.url, e.id, ["succeeded", "failed", "cancelled"], { headers: A });
      expect(done).toMatchObject({ status: "cancelled", error: { code: "CANCELLED", status: 499 } });
    });
  });
}

suite("a native tool's pending inside an execution (in-process store)", async () => {
  const s = await startServer({ config: config() });
  return [s, s];
});

// Database 11 of the run's redis-server: other files use other databases, so queues never mix.
suite("a native tool's pending inside an execution (Redis, answered on the other replica)", async () => {
  const shared = config({ redis: { url: `${inject("redisUrl")}/11` } });
  return Promise.all([startServer({ config: shared }), startServer({ config: shared })]);
});

// Three Cluster nodes: every key of an execution and its input must share one slot (CROSSSLOT otherwise).
let cluster: ClusterSet | undefined;
afterAll(() => cluster?.stop());
suite("a native tool's pending inside an execution (Redis Cluster, answered on the other replica)", async () => {
  cluster = await startCluster();
  const shared = config({ redis: { cluster: cluster.nodes, namespace: "tnx-pending" } });
  return Promise.all([startServer({ config: shared }), startServer({ config: shared })]);
});

describe("a pending nobody answers", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ config: config({ server: { inputTimeoutMs: 300 } }) });
  });
  afterAll(() => s?.close());

  it("fails the execution with INPUT_TIMEOUT after server.inputTimeoutMs; a late answer is 410", async () => {
    const asked = await waiting(s.url, "confirm_delete", { filename: "late.txt" });
    const failed = await pollUntil(s.url, asked.id, ["failed", "succeeded"], { headers: A });
    expect(failed).toMatchObject({ status: "failed", error: { code: "INPUT_TIMEOUT" } });
    const late = await answer(s.url, asked.id, { input: accept({}) });
    expect(late.status).toBe(410);
  });
});

describe("shutdown while an execution waits on its caller", () => {
  it("ends the wait at the end of the grace period, as it aborts a call", async () => {
    const s = await startServer({ config: config({ server: { shutdownGraceMs: 100 } }) });
    try {
      await waiting(s.url, "confirm_delete", { filename: "stop.txt" });
    } finally {
      // Resolves only once the wait ended: the test's own timeout is the bound (without the wait
      // counted as a call, it lasts server.inputTimeoutMs, 10 minutes).
      await s.app.toolnexus.shutdown();
    }
  });
});
