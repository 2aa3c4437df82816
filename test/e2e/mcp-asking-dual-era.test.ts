import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptedExecution, pollUntil, submit, type ExecutionBody } from "../helpers/executions.js";
import { startServer, type TestServer } from "../helpers/server.js";

// A stdio server that speaks both eras and asks mid-call: it works through the gateway with
// the default config (no protocolVersion pin) because a stdio server is spoken to in 2025 first.
const ASKING = fileURLToPath(new URL("../fixtures/mcp/v2-asking-stdio-server.mjs", import.meta.url));

type Waiting = ExecutionBody & { inputRequests?: Record<string, { method: string; params: { message?: string } }> };

describe("a dual-era server that asks mid-call, unpinned", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ config: { mcpServers: { asking: { command: [process.execPath, ASKING] } } } });
  });
  afterAll(() => srv?.close());

  it("is spoken to in 2025 over stdio, and /status says why", async () => {
    const status = (await (await fetch(`${srv.url}/status`)).json()) as { sources: Record<string, unknown>[] };
    expect(status.sources.find((s) => s.name === "asking")).toMatchObject({
      state: "connected",
      protocolVersion: "2025-11-25",
      protocolReason: expect.stringMatching(/^stdio: initialize first, so the server's mid-call requests/),
    });
  });

  it("its question reaches a REST caller (an execution's input_required) and the answer completes the call", async () => {
    const e = await acceptedExecution(await submit(srv.url, "asking_ask", { arguments: {} }));
    const waiting = (await pollUntil(srv.url, e.id, ["input_required", "succeeded", "failed"])) as Waiting;
    expect(waiting.status).toBe("input_required");
    const [key, request] = Object.entries(waiting.inputRequests ?? {})[0] ?? [];
    expect(request).toMatchObject({ method: "elicitation/create", params: { message: "Favourite colour?" } });
    const answered = await fetch(`${srv.url}/executions/${e.id}/input`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ inputResponses: { [key as string]: { action: "accept", content: { colour: "teal" } } } }),
    });
    expect(answered.status).toBe(200);
    const done = await pollUntil(srv.url, e.id, ["succeeded", "failed"]);
    expect(done.result).toMatchObject({ output: 'legacy: {"action":"accept","content":{"colour":"teal"}}', isError: false });
  });
});
