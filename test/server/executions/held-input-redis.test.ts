import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { acceptedExecution, pollUntil, readEvents, submit, type ExecutionBody } from "../../helpers/executions.js";
import { startCluster } from "../../helpers/redis-ha.js";
import { startServer, type TestServer } from "../../helpers/server.js";

// Database 7 of the run's redis-server: other files use other databases, so queues never mix.
const url = `${inject("redisUrl")}/7`;
// A real 2025-era upstream (SDK 1.x, stdio) that asks the gateway mid-call; each replica runs its own.
const ASKING = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/mcp/asking-server.mjs");
const KEY_A = "key-a-0123456789abcdef";
const KEY_B = "key-b-0123456789abcdef";
const A = { authorization: `Bearer ${KEY_A}` };
const B = { authorization: `Bearer ${KEY_B}` };
const ACCEPT = { action: "accept", content: { response: "across" } };

type Waiting = ExecutionBody & { inputRequests?: Record<string, { method: string }> };
function answer(base: string, id: string, inputResponses: unknown, headers = A): Promise<Response> {
  return fetch(`${base}/executions/${id}/input`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ inputResponses }),
  });
}

function keyOf(e: Waiting): string {
  return Object.keys(e.inputRequests ?? {})[0] ?? "";
}

const TOPOLOGIES: [string, () => Promise<{ redis: Record<string, unknown>; stop(): Promise<void> }>][] = [
  ["one Redis", async () => ({ redis: { url }, stop: async () => {} })],
  [
    // The held call's keys and its input's must share one slot, or the Cluster refuses them (CROSSSLOT).
    "a Redis Cluster",
    async () => {
      const cluster = await startCluster();
      return { redis: { cluster: cluster.nodes, namespace: "tnx-held" }, stop: () => cluster.stop() };
    },
  ],
];

describe.each(TOPOLOGIES)("held input requests on %s, two replicas", (_, start) => {
  let one: TestServer;
  let two: TestServer;
  let stop: () => Promise<void> = async () => {};

  beforeAll(async () => {
    const shared = await start();
    stop = shared.stop;
    const config = {
      redis: shared.redis,
      auth: {
        apiKeys: [
          { id: "a", key: KEY_A },
          { id: "b", key: KEY_B },
        ],
      },
      mcpServers: { asker: { command: [process.execPath, ASKING] } },
    };
    [one, two] = await Promise.all([startServer({ config }), startServer({ config })]);
  });
  afterAll(async () => {
    await Promise.all([one?.close(), two?.close()]);
    await stop();
  });

  it("a call promoted on one replica is answered on the other, by its owner only, and completes with the answer upstream", async () => {
    const res = await fetch(`${one.url}/tools/asker_ask/execute`, {
      method: "POST",
      headers: { "content-type": "application/json", ...A },
      body: JSON.stringify({ arguments: { message: "Across replicas?" } }),
    });
    expect(res.status).toBe(202);
    const promoted = (await res.json()) as Waiting;
    const seen = (await pollUntil(two.url, promoted.id, ["input_required"], { headers: A })) as Waiting;
    expect(seen.inputRequests).toEqual(promoted.inputRequests);
    const key = keyOf(seen);
    expect((await answer(two.url, promoted.id, { [key]: ACCEPT }, B)).status).toBe(404);
    expect((await answer(two.url, promoted.id, { nope: ACCEPT })).status).toBe(422);
    const ok = await answer(two.url, promoted.id, { [key]: ACCEPT });
    expect(ok.status).toBe(200);
    const done = await pollUntil(two.url, promoted.id, ["succeeded", "failed"], { headers: A });
    expect(done.status).toBe("succeeded");
    expect(JSON.parse(done.result?.output ?? "{}")).toEqual(ACCEPT);
  });

  it("a submitted execution waits wherever it runs; its events on either replica show input_required", async () => {
    const e = await acceptedExecution(await submit(one.url, "asker_ask", { arguments: { message: "Any worker?" } }, A));
    const events = readEvents(two.url, e.id, A);
    const asked = (await pollUntil(one.url, e.id, ["input_required"], { headers: A })) as Waiting;
    // Answered on both replicas in turn: whichever runs it, one of the two answers crosses over.
    expect((await answer(two.url, e.id, { [keyOf(asked)]: ACCEPT })).status).toBe(200);
    const done = await pollUntil(one.url, e.id, ["succeeded", "failed"], { headers: A });
    expect(JSON.parse(done.result?.output ?? "{}")).toEqual(ACCEPT);
    expect((await events).events.map((x) => x.event)).toEqual(["execution", "input_required", "result"]);
  });

  it("cancelling a promoted call on the other replica aborts it where it is held", async () => {
    const res = await fetch(`${one.url}/tools/asker_ask/execute`, {
      method: "POST",
      headers: { "content-type": "application/json", ...A },
      body: "{}",
    });
    const promoted = (await res.json()) as Waiting;
    const cancel = await fetch(`${two.url}/executions/${promoted.id}/cancel`, { method: "POST", headers: A });
    expect(cancel.status).toBe(200);
    expect(await cancel.json()).toMatchObject({ status: "cancelled", error: { code: "CANCELLED" } });
    expect((await answer(two.url, promoted.id, { [keyOf(promoted)]: ACCEPT })).status).toBe(409);
  });
});
