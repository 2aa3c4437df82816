import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { McpServerSource } from "../../../src/sources/mcp/mcp-server-source.js";
import { toServerSpec } from "../../../src/sources/mcp/config/server-spec.js";
import { silentLogger } from "../../../src/core/types.js";
import { eventually, FAULT_SERVER, fixtureLog, readEvents } from "./fixture.js";

describe("a stdio MCP server that crashes at start", () => {
  it("is spawned once per reconnect attempt, not twice (probe, then initialize)", async () => {
    const { dir, log } = await fixtureLog();
    const block = path.join(dir, "down");
    await writeFile(block, "");
    const spec = toServerSpec(
      "fx",
      { command: [process.execPath, FAULT_SERVER], env: { FIXTURE_LOG: log, FAIL_START_IF_EXISTS: block } },
      dir,
    );
    const source = new McpServerSource(spec, { backoff: { baseMs: 20, maxMs: 40 } });
    let failed = 0;
    const logger = {
      ...silentLogger,
      debug: (_o: object | string, msg?: string) => void (msg === "mcp reconnect attempt failed" && failed++),
    };
    await source.build({ logger, onToolsChanged: () => {} });
    await eventually(() => (failed >= 5 ? true : undefined), 15_000, "five failed reconnect attempts");
    await source.close();
    const attempts = 1 + failed; // the start, then each failed reconnect
    const spawns = (await readEvents(log)).filter((e) => e.event === "refused-start").length;
    // The start probes and retries with initialize (two spawns); every later attempt spawns once
    // (and one more may have been under way when the source closed).
    expect(spawns).toBeLessThanOrEqual(attempts + 2);
    expect(spawns).toBeGreaterThanOrEqual(attempts);
  }, 30_000);
});
