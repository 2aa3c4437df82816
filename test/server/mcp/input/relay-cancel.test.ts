// A cancel of a call relayed to a 2025 client (its questions on the call's own stream) must end
// the call wherever it is: waiting on the client between two rounds, or in the re-call that
// carries the answers upstream.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool } from "../../../../src/core/define-tool.js";
import type { ToolnexusError } from "../../../../src/core/errors.js";
import { startServer, type TestServer } from "../../../helpers/server.js";

const KEY = "key-a-0123456789abcdef";
const A = { authorization: `Bearer ${KEY}` };
const pending = (id: string, prompt: string) => ({
  output: prompt,
  isError: true,
  metadata: { pending: { id, kind: "approval", prompt } },
});

/** Why the last re-call's signal aborted (its ToolnexusError code), once it did. */
let abortedWith: string | undefined;
let reCallStarted = false;

// Two approvals, then work that lasts until the call is aborted: the second round's re-call.
const twoRoundsThenWork = defineTool({
  name: "two_rounds_then_work",
  description: "asks twice, then works until cancelled",
  inputSchema: { type: "object" },
  run: (_args, ctx) => {
    if (!ctx.answer) return pending("first", "First?");
    if (ctx.answer.id === "first") return pending("second", "Second?");
    reCallStarted = true;
    return new Promise((_, reject) => {
      ctx.signal?.addEventListener("abort", () => {
        abortedWith = (ctx.signal?.reason as ToolnexusError | undefined)?.code;
        reject(new Error("aborted"));
      });
    });
  },
});

let s: TestServer;
const clients: Client[] = [];
beforeAll(async () => {
  s = await startServer({ config: { auth: { apiKeys: [{ id: "a", key: KEY }] } }, tools: [twoRoundsThenWork] });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await s.close();
});

/** A 1.x SDK client (2025 era) that declared elicitation; `answer` replies to each question. */
async function connect(answer: (n: number) => Promise<Record<string, unknown>>): Promise<Client> {
  const client = new Client({ name: "relay-cancel", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: A } }));
  let n = 0;
  client.setRequestHandler(ElicitRequestSchema, () => answer(++n));
  return client;
}

/** The caller's one execution of the tool in `status`, once there is one. */
async function executionIn(status: string): Promise<{ id: string; status: string }> {
  let found: { id: string; status: string } | undefined;
  await expect
    .poll(async () => {
      const res = await fetch(`${s.url}/executions?status=${status}`, { headers: A });
      const { executions } = (await res.json()) as { executions: { id: string; status: string; tool: string }[] };
      found = executions.find((e) => e.tool === "two_rounds_then_work");
      return found;
    })
    .toBeDefined();
  return found!;
}

async function cancelled(id: string): Promise<void> {
  const res = await fetch(`${s.url}/executions/${id}/cancel`, { method: "POST", headers: A });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ status: "cancelled", error: { code: "CANCELLED" } });
}

describe("a call relayed to a 2025 client, cancelled as an execution", () => {
  it("while it waits on the client's second answer: cancelled, and the call ends CANCELLED", async () => {
    let second!: () => void;
    const asked = new Promise<void>((r) => (second = r));
    // The second question is never answered: the call waits between its two rounds.
    const client = await connect((n) => (n === 1 ? Promise.resolve({ action: "accept", content: {} }) : (second(), new Promise(() => {}))));
    const call = client.callTool({ name: "two_rounds_then_work", arguments: {} });
    void call.catch(() => undefined);
    await asked;
    const e = await executionIn("input_required");
    await cancelled(e.id);
    await expect(call).rejects.toMatchObject({ data: { code: "CANCELLED" } });
  });

  it("during the second round's re-call: the re-call upstream is aborted with CANCELLED", async () => {
    const client = await connect(async () => ({ action: "accept", content: {} }));
    const call = client.callTool({ name: "two_rounds_then_work", arguments: {} });
    void call.catch(() => undefined);
    await expect.poll(() => reCallStarted).toBe(true);
    const e = await executionIn("running");
    await cancelled(e.id);
    await expect.poll(() => abortedWith).toBe("CANCELLED");
    await expect(call).rejects.toMatchObject({ data: { code: "CANCELLED" } });
  });
});
