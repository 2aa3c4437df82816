import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { tempDir } from "../helpers/temp-dir.js";
// @ts-expect-error -- a plain-JS fixture module shared with the scale bench
import { startManyServers } from "../fixtures/mcp/many-servers.mjs";

interface Many {
  url(i: number): string;
  hang: string;
  refused: string;
  initialize: number[];
  calls: number[];
  close(): Promise<void>;
}

interface Status {
  sources: { name: string; state: string; tools: number }[];
}

let many: Many;
beforeAll(async () => {
  many = (await startManyServers(100, 100)) as Many;
});
afterAll(async () => {
  await many.close();
});

type ServerEntry = { url: string; timeout?: number; tools?: Record<string, boolean> };
const servers = (n: number, extra: Record<string, ServerEntry> = {}): Record<string, ServerEntry> => ({
  ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`s${i}`, { url: many.url(i) }])),
  ...extra,
});

async function json<T>(url: string): Promise<T> {
  return (await (await fetch(url)).json()) as T;
}

describe("100 upstream MCP servers of 100 tools each", () => {
  it("lists all 10,000 tools once ready, every server connected", async () => {
    const s = await startServer({ config: { mcpServers: servers(100) }, logger: false });
    try {
      const { tools } = await json<{ tools: { name: string }[] }>(`${s.url}/tools`);
      expect(tools).toHaveLength(10_000);
      expect(new Set(tools.map((t) => t.name)).size).toBe(10_000);
      expect(tools.map((t) => t.name)).toContain("s99_sync_ticket");
      const status = await json<Status>(`${s.url}/status`);
      expect(status.sources.filter((x) => x.state === "connected" && x.tools === 100)).toHaveLength(100);
    } finally {
      await s.close();
    }
  });

  it("a server that never answers and one that refuses do not hold back readiness or the others' tools", async () => {
    // The silent server's own budget is far beyond this test's: readiness cannot have waited for it.
    const config = { mcpServers: servers(100, { silent: { url: many.hang, timeout: 600_000 }, gone: { url: many.refused } }) };
    const s = await startServer({ config, logger: false });
    try {
      expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
      const status = await json<Status>(`${s.url}/status`);
      const byName = new Map(status.sources.map((x) => [x.name, x]));
      expect(byName.get("silent")?.state).toBe("connecting");
      expect(byName.get("gone")?.state).toBe("failed");
      for (let i = 0; i < 100; i++) expect(byName.get(`s${i}`)).toMatchObject({ state: "connected", tools: 100 });
      const { tools } = await json<{ tools: unknown[] }>(`${s.url}/tools`);
      expect(tools).toHaveLength(10_000);
      const call = await fetch(`${s.url}/tools/s7_get_file/execute`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"arguments":{"id":"a"}}',
      });
      expect(await call.json()).toMatchObject({ output: "s7.get_file: a", isError: false });
    } finally {
      await s.close();
    }
  });
});

describe("reload of one of 100 servers' config under load", () => {
  let s: TestServer;
  let file: string;
  beforeAll(async () => {
    const dir = await tempDir({});
    file = path.join(dir, "toolnexus.json");
    await writeFile(file, JSON.stringify({ mcpServers: servers(100) }));
    s = await startServer({ config: file, logger: false });
  });
  afterAll(async () => {
    await s.close();
  });

  it("touches only that server's tools and drops no call", async () => {
    const before = [...many.initialize];
    let stop = false;
    let ok = 0;
    const failures: string[] = [];
    // Callers of the reloaded server and of an untouched one, all through the reload.
    const worker = (tool: string) => async () => {
      while (!stop) {
        const res = await fetch(`${s.url}/tools/${tool}/execute`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"arguments":{"id":"x"}}',
        }).catch((e: Error) => e);
        if (res instanceof Error) failures.push(res.message);
        else if (res.status !== 200) failures.push(`${tool}: ${res.status} ${await res.text()}`);
        else ok++;
      }
    };
    const workers = [..."abcdefgh"].map((_, k) => worker(k % 2 ? "s3_list_issue" : "s4_list_issue")());
    await new Promise((r) => setTimeout(r, 200));
    const served = ok;
    // Server s3 gets a tool filter: only its `list_*` tools stay.
    const kept = Object.fromEntries(["list_issue", "list_pull_request", "list_file", "list_message"].map((n) => [n, true]));
    await writeFile(file, JSON.stringify({ mcpServers: servers(100, { s3: { url: many.url(3), tools: kept } }) }));
    expect(await s.app.toolnexus.reload()).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    stop = true;
    await Promise.all(workers);

    expect(failures).toEqual([]);
    expect(ok).toBeGreaterThan(served);
    // Only s3 opened a new session.
    const opened = many.initialize.map((n, i) => n - (before[i] ?? 0));
    expect(opened[3]).toBeGreaterThan(0);
    expect(opened.filter((n, i) => i !== 3 && n > 0)).toEqual([]);
    const { tools } = await json<{ tools: { name: string }[] }>(`${s.url}/tools`);
    const names = tools.map((t) => t.name);
    expect(names.filter((n) => n.startsWith("s3_")).sort()).toEqual([
      "s3_list_file",
      "s3_list_issue",
      "s3_list_message",
      "s3_list_pull_request",
    ]);
    expect(names.filter((n) => n.startsWith("s4_"))).toHaveLength(100);
    expect(names).toHaveLength(9904);
  });
});
