import { pino } from "pino";
import { describe, expect, it } from "vitest";
import Fastify, { type FastifyBaseLogger } from "fastify";
import { FastifyLogger, RequestLogger } from "../../../src/server/http/request-logger.js";
import { buildServer } from "../../../src/server/build-server.js";

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

  it("is what Fastify makes of the service's logger for a request; pino's child for a route with a level of its own", async () => {
    const lines: string[] = [];
    const root = rootWith(lines);
    const logger = new FastifyLogger(root);
    expect(logger.child({ reqId: "x" }, {})).toBeInstanceOf(RequestLogger);
    expect(logger.child({ reqId: "x" }, { level: "warn" })).toBeInstanceOf(FastifyLogger);
    expect(logger.child({ reqId: "x" }, { serializers: {} })).toBeInstanceOf(FastifyLogger);

    const app = Fastify({ loggerInstance: logger as unknown as FastifyBaseLogger, disableRequestLogging: true });
    const seen: unknown[] = [];
    app.get("/plain", async (request) => {
      seen.push(request.log);
      request.log.info("plain");
      return {};
    });
    app.get("/quiet", { logLevel: "warn" }, async (request) => {
      seen.push(request.log);
      request.log.info("hidden");
      request.log.warn("quiet");
      return {};
    });
    await app.inject({ url: "/plain" });
    await app.inject({ url: "/quiet" });
    await app.close();
    expect(app.log).toBeInstanceOf(FastifyLogger);
    expect(seen[0]).toBeInstanceOf(RequestLogger);
    expect(seen[1]).toBeInstanceOf(FastifyLogger);
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { level: 30, reqId: "req-1", msg: "plain" },
      { level: 40, reqId: "req-2", msg: "quiet" },
    ]);
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
