import diagnostics from "node:diagnostics_channel";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import Fastify from "fastify";
import { RequestLogger } from "../../../src/server/http/request-logger.js";
import { installErrorHandler } from "../../../src/server/http/error-handler.js";
import { RouteMethods } from "../../../src/server/http/route-methods.js";
import { buildServer } from "../../../src/server/build-server.js";
import { testTools } from "../../helpers/tools.js";

function rootWith(lines: string[], level = "info"): pino.Logger {
  return pino({ level, timestamp: false, base: undefined }, { write: (l: string) => void lines.push(l) });
}

describe("RequestLogger", () => {
  it("writes what pino's child writes, and makes the child only when something logs", () => {
    const a: string[] = [];
    const b: string[] = [];
    const lazy = new RequestLogger(rootWith(a), { reqId: "r-1" });
    const child = rootWith(b).child({ reqId: "r-1" });
    expect(lazy.unbound).toBeDefined();
    expect(lazy.isLevelEnabled("info")).toBe(true);
    expect(lazy.isLevelEnabled("debug")).toBe(false);
    expect(lazy.level).toBe("info");
    lazy.debug("hidden");
    lazy.warn({ n: 1 }, "careful %s", "now");
    child.warn({ n: 1 }, "careful %s", "now");
    lazy.error(new Error("boom"));
    child.error(new Error("boom"));
    lazy.child({ sub: true }).info("nested");
    child.child({ sub: true }).info("nested");
    expect(lazy.unbound).toBeUndefined();
    expect(a.map((l) => l.replace(/"stack":"[^"]*"/, ""))).toEqual(b.map((l) => l.replace(/"stack":"[^"]*"/, "")));
    expect(a).toHaveLength(3);
  });

  it("sets the level on its own child, not on the root", () => {
    const lines: string[] = [];
    const root = rootWith(lines);
    const lazy = new RequestLogger(root, { reqId: "r-2" });
    lazy.level = "debug";
    lazy.debug("seen");
    expect(root.level).toBe("info");
    expect(lines).toHaveLength(1);
    expect(lazy.isLevelEnabled("debug")).toBe(true);
  });

  it("is bound to every request of the service, whose own logger is app.log", async () => {
    const lines: string[] = [];
    const root = rootWith(lines);
    const app = await buildServer({ config: {}, logger: root } as never);
    try {
      expect(app.log).toBe(root);
      const seen: unknown[] = [];
      app.addHook("onResponse", (request, _reply, done) => {
        seen.push(request.log);
        done();
      });
      const res = await app.inject({ url: "/nowhere", headers: { "x-request-id": "req-404" } });
      expect(res.statusCode).toBe(404);
      // The 404 handler is no route: it logs its own refusal, once.
      const rejected = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === "request rejected");
      expect(rejected).toEqual([{ level: 30, reqId: "req-404", method: "GET", url: "/nowhere", statusCode: 404, msg: "request rejected" }]);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toBeInstanceOf(RequestLogger);
      expect((seen[0] as RequestLogger).bindings).toEqual({ reqId: "req-404" });
    } finally {
      await app.close();
    }
  });

  it("leaves a tool call's response without Fastify's listeners; a route with an onResponse hook has them", async () => {
    const app = await buildServer({ config: {}, tools: testTools(), logger: rootWith([]) } as never);
    // The listeners the service (Fastify and its routes) adds to each response.
    const added = new Map<string, string[]>();
    const onStart = ({ request, response }: { request: IncomingMessage; response: ServerResponse }) => {
      const events: string[] = [];
      added.set(request.url ?? "", events);
      const on = response.on.bind(response);
      response.on = ((event: string | symbol, listener: (...args: unknown[]) => void) => {
        // Node's own (its "finish" bookkeeping) are left out: only what the service adds.
        if (!new Error().stack?.split("\n")[2]?.includes("(node:")) events.push(String(event));
        return on(event, listener);
      }) as typeof response.on;
    };
    diagnostics.subscribe("http.server.request.start", onStart as (message: unknown) => void);
    try {
      await app.listen({ host: "127.0.0.1", port: 0 });
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const call = await fetch(`${base}/tools/echo/execute`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"arguments":{"text":"hi"}}',
      });
      expect(call.status).toBe(200);
      expect((await fetch(`${base}/tools`)).status).toBe(200);
      // The call's own "close" (a client that leaves cancels it), and nothing else.
      expect(added.get("/tools/echo/execute")).toEqual(["close"]);
      expect(added.get("/tools")).toEqual(expect.arrayContaining(["finish", "error"]));
    } finally {
      diagnostics.unsubscribe("http.server.request.start", onStart as (message: unknown) => void);
      await app.close();
    }
  });

  it("is bound by the error handler when a hook before the service's own fails", async () => {
    const lines: string[] = [];
    const app = Fastify({ genReqId: () => "req-early" });
    app.log = rootWith(lines);
    installErrorHandler(app, (s) => s, new RouteMethods(app));
    app.addHook("onRequest", () => {
      throw new Error("a hook's bug");
    });
    app.get("/x", async () => ({}));
    const res = await app.inject({ url: "/x" });
    await app.close();
    expect(res.statusCode).toBe(500);
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        level: 50,
        reqId: "req-early",
        msg: "internal error",
        err: expect.objectContaining({ message: "a hook's bug" }),
      }),
    ]);
  });

  it("gives a refused tool call its own line only, not a rejected request's", async () => {
    const lines: string[] = [];
    const app = await buildServer({ config: {}, tools: testTools(), logger: rootWith(lines) } as never);
    try {
      const res = await app.inject({ method: "POST", url: "/tools/nope/execute", payload: {}, headers: { "x-request-id": "req-nope" } });
      expect(res.statusCode).toBe(404);
      const mine = lines.map((l) => JSON.parse(l)).filter((l) => l.reqId === "req-nope");
      expect(mine).toEqual([expect.objectContaining({ msg: "tool call", tool: "nope", outcome: "rejected", statusCode: 404 })]);
    } finally {
      await app.close();
    }
  });

  it("carries the request id of a refused request's line through the service", async () => {
    const lines: string[] = [];
    const app = await buildServer({
      config: { auth: { apiKeys: [{ id: "k", key: "k".repeat(32), tools: ["*"] }] } },
      logger: rootWith(lines),
    } as never);
    try {
      const res = await app.inject({ method: "GET", url: "/tools", headers: { "x-request-id": "req-refused-1" } });
      expect(res.statusCode).toBe(401);
      const line = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "request rejected");
      expect(line).toMatchObject({ reqId: "req-refused-1", statusCode: 401 });
    } finally {
      await app.close();
    }
  });
});
