import { describe, expect, it } from "vitest";
import { agent, capturingLogger, loadSource, toolNamed } from "./helpers.js";

describe("A2A protocol version and transport choice", () => {
  it("the contract's literal request (SendMessage without A2A-Version) is refused by a real 1.x agent", async () => {
    // Why the version is read from the card: the header-less request counts as 0.3.
    const a = await agent({ versions: ["1.0"] });
    const res = await fetch(`${a.url}/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: {
          message: { role: "user", messageId: "m", parts: [{ kind: "text", text: "echo x" }] },
          configuration: { blocking: false },
        },
      }),
    });
    expect(((await res.json()) as { error?: { message: string } }).error?.message).toMatch(/version '0\.3' is not supported/);
  });

  it("speaks 1.0 to an agent offering both 1.0 and 0.3", async () => {
    const a = await agent({ versions: ["0.3", "1.0"] });
    const logger = capturingLogger();
    const src = await loadSource({ card: a.cardUrl }, {}, logger);
    const res = await toolNamed(src, "Test_Agent_echo").execute({ task: "echo both" });
    expect(res.output).toBe("echo: both");
    expect(new Set(a.calls.map((c) => `${c.method} ${c.a2aVersion}`))).toEqual(new Set(["SendMessage 1.0", "GetTask 1.0"]));
    expect(logger.lines).toContainEqual([
      "info",
      expect.objectContaining({ protocolVersion: "1.0", transport: "JSONRPC", tools: 2 }),
      "A2A agent loaded",
    ]);
  });

  it("speaks 0.3 to an agent whose card is 0.3-era (url + protocolVersion, no supportedInterfaces, skills without tags)", async () => {
    const a = await agent({ versions: ["0.3"], legacyCard: true });
    const src = await loadSource({ card: a.cardUrl, timeout: 5_000 });
    expect(src.tools().map((t) => t.name)).toEqual(["Test_Agent_echo", "Test_Agent_do_work"]);
    const done = await toolNamed(src, "Test_Agent_do_work").execute({ task: "echo legacy" });
    expect(done).toMatchObject({ output: "echo: legacy", isError: false });
    const failed = await toolNamed(src, "Test_Agent_echo").execute({ task: "fail nope" });
    expect(failed.output).toBe(`A2A task ${(failed.metadata as { taskId: string }).taskId} failed: nope`);
    expect(new Set(a.calls.map((c) => `${c.method} ${c.a2aVersion}`))).toEqual(new Set(["message/send 0.3", "tasks/get 0.3"]));
  });

  it("uses HTTP+JSON when that is the only transport the agent offers", async () => {
    const a = await agent({ versions: ["1.0"], transport: "HTTP+JSON" });
    const logger = capturingLogger();
    const src = await loadSource({ card: a.cardUrl }, {}, logger);
    const res = await toolNamed(src, "Test_Agent_echo").execute({ task: "echo rest" });
    expect(res).toMatchObject({ output: "echo: rest", isError: false, metadata: { state: "completed" } });
    expect(a.calls[0]).toMatchObject({ method: "POST /message:send", a2aVersion: "1.0" });
    expect(a.calls.slice(1).every((c) => c.method.startsWith("GET /tasks/"))).toBe(true);
    expect(logger.lines).toContainEqual(["info", expect.objectContaining({ transport: "HTTP+JSON" }), "A2A agent loaded"]);
  });

  it("sends the configured headers on every request, without letting them override A2A-Version", async () => {
    const a = await agent({ versions: ["1.0"] });
    const src = await loadSource({ card: a.cardUrl, headers: { Authorization: "Bearer t0ken-abc", "A2A-Version": "9.9" } });
    await toolNamed(src, "Test_Agent_echo").execute({ task: "echo h" });
    expect(a.calls.length).toBeGreaterThanOrEqual(2);
    expect(a.calls.every((c) => c.authorization === "Bearer t0ken-abc" && c.a2aVersion === "1.0")).toBe(true);
  });
});
