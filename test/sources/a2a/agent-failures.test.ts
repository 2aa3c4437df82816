import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { isToolnexusError } from "../../../src/core/errors.js";
import { agent, capturingLogger, loadSource, toolNamed } from "./helpers.js";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A plain HTTP server answering every request with `status` and `body` (not an agent). */
async function plainServer(status: number, body: string): Promise<string> {
  const s = createServer((_req, res) => res.writeHead(status, { "content-type": "application/json" }).end(body));
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/.well-known/agent-card.json`;
}

/** A loopback URL nothing listens on. */
async function closedPortUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return `http://127.0.0.1:${port}/.well-known/agent-card.json`;
}

describe("A2A agent failures", () => {
  it.each([
    ["the card answers 404", () => plainServer(404, "{}"), "agent card request answered HTTP 404"],
    ["the card is not JSON", () => plainServer(200, "<html>"), "agent card is not valid JSON"],
    ["the card has no name", () => plainServer(200, JSON.stringify({ skills: [] })), "agent card has no name"],
    ["nothing listens", closedPortUrl, 'A2A agent "peer" cannot be reached: connection refused (ECONNREFUSED)'],
  ])("marks the source failed, without tools, when %s", async (_label, url, error) => {
    const logger = capturingLogger();
    const src = await loadSource({ card: await url() }, {}, logger);
    expect(src.status()).toEqual({ source: "a2a", name: "peer", state: "failed", tools: 0, error });
    expect(src.tools()).toEqual([]);
    expect(logger.lines.some(([level]) => level === "error")).toBe(true);
  });

  it("gives up on a card that never arrives within the timeout", async () => {
    const s = createServer(() => {}); // accepts, never answers
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}/card`;
    const src = await loadSource({ card: url, timeout: 200 });
    s.closeAllConnections();
    expect(src.status()).toMatchObject({ state: "failed", error: "agent card not received within 200ms" });
  });

  it("keeps secrets out of the status error", async () => {
    const url = `${await closedPortUrl()}?token=sup3r-s3cret-value`;
    const src = await loadSource({ card: url }, { secrets: ["sup3r-s3cret-value"] });
    expect(src.status().state).toBe("failed");
    expect(JSON.stringify(src.status())).not.toContain("sup3r-s3cret-value");
  });

  it("refuses an agent the egress policy denies, checking the address it connects to", async () => {
    const a = await agent();
    const src = await loadSource({ card: a.cardUrl }, { egress: { deny: ["127.0.0.1/32"] } });
    expect(src.status()).toMatchObject({ state: "failed", error: expect.stringContaining("denied by egress.deny") });
    expect(a.calls).toEqual([]);
  });

  it("throws UPSTREAM_UNAVAILABLE (→ 502) when the agent is gone at execute time", async () => {
    const a = await agent();
    const src = await loadSource({ card: a.cardUrl });
    await a.close();
    const err = await toolNamed(src, "Test_Agent_echo")
      .execute({ task: "echo x" })
      .catch((e: unknown) => e);
    expect(isToolnexusError(err, "UPSTREAM_UNAVAILABLE")).toBe(true);
    expect((err as Error).message).toBe('A2A agent "peer" cannot be reached: connection refused (ECONNREFUSED)');
  });

  it("turns a JSON-RPC error the agent answers with into an isError result", async () => {
    // The card claims v0.3 but the server only accepts 1.0: the SDK server answers
    // message/send with a "version not supported" JSON-RPC error instead of a task.
    const a = await agent({ versions: ["1.0"], legacyCard: true });
    const res = await toolNamed(await loadSource({ card: a.cardUrl }), "Test_Agent_echo").execute({ task: "echo x" });
    expect(res.isError).toBe(true);
    expect(res.output).toMatch(/^A2A agent Test Agent answered with an error: .*'0\.3' is not supported/);
    expect(res.metadata).toMatchObject({ agent: "Test Agent", taskId: "", polls: 0 });
    expect(a.calls).toEqual([{ method: "message/send", a2aVersion: "0.3" }]);
  });
});
