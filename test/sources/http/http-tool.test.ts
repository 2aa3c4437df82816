import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Dispatcher } from "undici";
import { isToolnexusError } from "../../../src/core/errors.js";
import { silentLogger } from "../../../src/core/types.js";
import { EgressGuard } from "../../../src/net/egress-guard.js";
import { httpTool } from "../../../src/sources/http/http-tool.js";
import type { HttpToolConfig } from "../../../src/config/schema/sources.js";
import { closedPort, startUpstream, type Upstream } from "./upstream.js";

let up: Upstream;
let dispatcher: Dispatcher;

beforeAll(async () => {
  up = await startUpstream();
  dispatcher = new EgressGuard().dispatcher();
});
afterAll(async () => {
  await dispatcher.close();
  await up.close();
});

const tool = (cfg: Partial<HttpToolConfig> & { url: string }, secrets: string[] = []) =>
  httpTool({ name: "t", method: "GET", ...cfg }, { dispatcher, secrets, logger: silentLogger });

describe("httpTool", () => {
  it("returns a 2xx body with metadata.status", async () => {
    expect(await tool({ url: `${up.url}/text` }).execute({})).toEqual({ output: "hello", isError: false, metadata: { status: 200 } });
  });

  it("sends the built request: placeholders, query, JSON body, headers", async () => {
    const t = tool({ method: "PATCH", url: `${up.url}/echo/{id}`, query: ["v"], headers: { "X-Team": "core" } });
    const r = await t.execute({ id: "x/y", v: 2, name: "n" });
    const seen = JSON.parse(r.output) as { method: string; url: string; headers: Record<string, string>; body: string };
    expect(seen.method).toBe("PATCH");
    expect(seen.url).toBe("/echo/x%2Fy?v=2");
    expect(seen.headers["x-team"]).toBe("core");
    expect(JSON.parse(seen.body)).toEqual({ name: "n" });
  });

  it("non-2xx is a model-facing error with the body", async () => {
    expect(await tool({ url: `${up.url}/status/404` }).execute({})).toEqual({
      output: "HTTP 404: nope 404",
      isError: true,
      metadata: { status: 404 },
    });
    expect((await tool({ url: `${up.url}/status/503` }).execute({})).output).toBe("HTTP 503: nope 503");
  });

  it("result modes: json (compact), status+text", async () => {
    expect((await tool({ url: `${up.url}/json`, resultMode: "json" }).execute({})).output).toBe('{"a":1,"b":[true]}');
    const notJson = await tool({ url: `${up.url}/text`, resultMode: "json" }).execute({});
    expect(notJson).toMatchObject({ isError: true, output: "HTTP 200: the response is not valid JSON: hello" });
    expect(await tool({ url: `${up.url}/text`, resultMode: "status+text" }).execute({})).toEqual({
      output: "HTTP 200: hello",
      isError: false,
      metadata: { status: 200 },
    });
  });

  it("decodes the declared charset", async () => {
    expect((await tool({ url: `${up.url}/latin1` }).execute({})).output).toBe("café");
  });

  it("caps the response body", async () => {
    expect((await tool({ url: `${up.url}/big/100`, maxResponseBytes: 100 }).execute({})).output).toBe("x".repeat(100));
    const r = await tool({ url: `${up.url}/big/101`, maxResponseBytes: 100 }).execute({});
    expect(r).toEqual({
      isError: true,
      output: "HTTP 200: response body exceeds the 100-byte limit (maxResponseBytes); not returned",
      metadata: { status: 200 },
    });
  });

  it("a refused connection is UPSTREAM_UNAVAILABLE", async () => {
    const port = await closedPort();
    const err = await tool({ url: `http://127.0.0.1:${port}/x?token=abc` })
      .execute({})
      .catch((e: unknown) => e);
    expect(isToolnexusError(err, "UPSTREAM_UNAVAILABLE")).toBe(true);
    expect((err as Error).message).toBe(`t: cannot reach http://127.0.0.1:${port}: connection refused (ECONNREFUSED)`);
  });

  it("its own timeout is TOOL_TIMEOUT, and the upstream sees the request closed", async () => {
    const err = await tool({ url: `${up.url}/slow`, timeout: 200 })
      .execute({})
      .catch((e: unknown) => e);
    expect(isToolnexusError(err, "TOOL_TIMEOUT")).toBe(true);
    expect((err as Error).message).toBe(`t: ${up.url} did not answer within 200 ms`);
    await up.slowClosed;
  });

  it("ctx.signal aborts with the caller's reason", async () => {
    const ac = new AbortController();
    const reason = new Error("caller went away");
    setTimeout(() => ac.abort(reason), 50);
    await expect(tool({ url: `${up.url}/slow` }).execute({}, { signal: ac.signal })).rejects.toBe(reason);
  });

  it("scrubs header secrets an upstream echoes back", async () => {
    const r = await tool({ url: `${up.url}/echo`, headers: { Authorization: "Bearer s3cr3t-value" } }, [
      "s3cr3t-value",
      "unrelated-secret",
    ]).execute({});
    expect(r.output).not.toContain("s3cr3t-value");
    expect(r.output).toContain("Bearer [redacted]");
  });

  it("a deny rule refuses the upstream (502)", async () => {
    const guarded = new EgressGuard({ deny: ["127.0.0.1"] }).dispatcher();
    try {
      const t = httpTool({ name: "t", method: "GET", url: `${up.url}/text` }, { dispatcher: guarded, secrets: [], logger: silentLogger });
      const err = await t.execute({}).catch((e: unknown) => e);
      expect(isToolnexusError(err, "UPSTREAM_UNAVAILABLE")).toBe(true);
      expect((err as Error).message).toBe(`t: cannot reach ${up.url}: egress to 127.0.0.1 refused: denied by egress.deny`);
    } finally {
      await guarded.close();
    }
  });
});
