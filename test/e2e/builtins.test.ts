import http from "node:http";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTRACT_BUILTIN_NAMES } from "../../src/sources/builtins/registry.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { groupGone, marker, pgidOf, waitGroupGone } from "../sources/builtins/process-check.js";
import { executeTool } from "../helpers/execute.js";

let dir: string;
let ws: string;
let s: TestServer;
beforeAll(async () => {
  process.env.TOOLNEXUS_CANARY = "e2e-canary-secret";
  dir = await realpath(await mkdtemp(path.join(tmpdir(), "tn-e2e-builtins-")));
  ws = path.join(dir, "workspace");
  s = await startServer({ config: { builtins: { enabled: true, workspace: ws } } });
});
afterAll(async () => {
  delete process.env.TOOLNEXUS_CANARY;
  await s.close();
  await rm(dir, { recursive: true, force: true });
});

async function execute(name: string, body: Record<string, unknown>) {
  const res = await executeTool(s.url, name, body);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("built-in tools over REST", () => {
  it("lists the built-ins in contract order with source builtin", async () => {
    const res = await fetch(`${s.url}/tools?source=builtin`);
    const { tools } = (await res.json()) as { tools: { name: string; source: string }[] };
    const names = tools.map((t) => t.name);
    // webfetch comes from the HTTP work (egress guard); every other name must be there, in order.
    expect(names).toEqual(CONTRACT_BUILTIN_NAMES.filter((n) => n !== "webfetch" || names.includes("webfetch")));
    expect(new Set(tools.map((t) => t.source))).toEqual(new Set(["builtin"]));
  });

  it("an unconfigured service has no built-ins at all", async () => {
    const bare = await startServer({ config: {} });
    const { tools } = (await (await fetch(`${bare.url}/tools`)).json()) as { tools: unknown[] };
    expect(tools).toEqual([]);
    expect((await fetch(`${bare.url}/tools/bash/execute`, { method: "POST" })).status).toBe(404);
    await bare.close();
  });

  it("question → pending → execute again with answer → result", async () => {
    const questions = [{ question: "Ship it?", options: ["yes", "no"] }];
    const first = await execute("question", { arguments: { questions } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ isError: true, output: "Ship it? (options: yes, no)" });
    const request = (first.body.metadata as { pending: { id: string; kind: string; prompt: string; data: unknown } }).pending;
    expect(request).toMatchObject({ kind: "question", prompt: "Ship it? (options: yes, no)", data: { questions } });

    const second = await execute("question", {
      arguments: { questions },
      answer: { id: request.id, ok: true, data: { answers: ["yes"] } },
    });
    expect(second).toEqual({ status: 200, body: { output: '{"answers":["yes"]}', isError: false } });

    const declined = await execute("question", { arguments: { questions }, answer: { id: request.id, ok: false, reason: "declined" } });
    expect(declined.body).toMatchObject({ isError: true, output: "declined: Ship it? (options: yes, no)" });

    const line = s.logs.find((l) => l.tool === "question" && l.pending === true);
    expect(line).toMatchObject({ outcome: "ok", statusCode: 200 });
  });

  it("an escape attempt is a 200 isError result naming the rule", async () => {
    const r = await execute("read", { arguments: { path: "../../etc/passwd" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      isError: true,
      output: 'read: refused: path "../../etc/passwd" climbs out of the workspace with ".." (paths must stay inside the workspace)',
    });
  });

  it("bash cannot see the service's environment", async () => {
    const r = await execute("bash", { arguments: { command: 'echo "[$TOOLNEXUS_CANARY]"; env' } });
    expect(r.body).toMatchObject({ isError: false });
    expect(r.body.output).toMatch(/^\[\]\n/);
    expect(r.body.output).not.toContain("e2e-canary-secret");
  });

  it("bash runs in the bubblewrap sandbox by default here: said at start and in /status, the service's environ out of reach", async () => {
    expect(s.logs.filter((l) => String(l.msg).startsWith("builtins sandbox:")).map((l) => l.msg)).toEqual(["builtins sandbox: bubblewrap"]);
    const status = (await (await fetch(`${s.url}/status`)).json()) as { sources: Record<string, unknown>[] };
    expect(status.sources.find((x) => x.source === "builtin")).toMatchObject({ state: "connected", sandbox: "bubblewrap" });
    const r = await execute("bash", { arguments: { command: `cat /proc/${process.pid}/environ` } });
    expect(r.body.output).toMatch(/No such file or directory/);
    expect(r.body.output).not.toContain("e2e-canary-secret");
  });

  it("a call timeout kills the bash process group and answers 504", async () => {
    // Found from outside by a marker: in the bubblewrap sandbox `$$` is a namespace-local id.
    const m = marker("rest-timeout");
    const call = execute("bash", { arguments: { command: `: ${m}; sleep 30 & sleep 30; exit 0` }, timeoutMs: 300 });
    const pgid = await pgidOf(m);
    const r = await call;
    expect(r.status).toBe(504);
    expect(r.body).toMatchObject({ code: "TOOL_TIMEOUT" });
    expect(await waitGroupGone(pgid)).toBe(true);
  });

  it("a client disconnect kills the bash process group, leaving no process behind", async () => {
    const { port } = new URL(s.url);
    const m = marker("disconnect");
    const body = JSON.stringify({ arguments: { command: `: ${m}; sleep 30 & sleep 30 & wait` } });
    const req = http.request({
      host: "127.0.0.1",
      port: Number(port),
      method: "POST",
      path: "/tools/bash/execute",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), "x-request-id": "builtins-disconnect" },
    });
    req.on("error", () => {}); // the socket is destroyed on purpose
    req.end(body);

    const pgid = await pgidOf(m);
    expect(groupGone(pgid)).toBe(false);
    const destroyedAt = performance.now();
    req.destroy();

    expect(await waitGroupGone(pgid)).toBe(true);
    console.log(`disconnect → bash process group gone: ${(performance.now() - destroyedAt).toFixed(1)} ms`);
    let line: Record<string, unknown> | undefined;
    for (let i = 0; i < 200 && !line; i++) {
      line = s.logs.find((l) => l.reqId === "builtins-disconnect" && l.msg === "tool call");
      if (!line) await delay(10);
    }
    expect(line).toMatchObject({ tool: "bash", outcome: "cancelled", statusCode: 499 });
  });

  it("command output never reaches the log", async () => {
    await execute("bash", { arguments: { command: "echo log-probe-7f3a" } });
    expect(s.logText()).not.toContain("log-probe-7f3a");
    expect(s.logText()).not.toContain("e2e-canary-secret");
  });
});
