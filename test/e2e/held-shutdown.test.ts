import path from "node:path";
import { expect, it } from "vitest";
import { pollUntil } from "../helpers/executions.js";
import { startServeProcess } from "../helpers/serve-process.js";
import { tempDir } from "../helpers/temp-dir.js";

const ASKING = path.resolve(import.meta.dirname, "../fixtures/mcp/asking-server.mjs");

// A held call that ended unanswered must leave nothing pending: the serve process exits on
// SIGTERM. Before the fix its 10-minute input wait kept Node alive. (The call's own deadline
// pauses while it waits, so the wait's bound, inputTimeoutMs, is what ends it here.)
it("a promoted call that timed out unanswered does not keep serve from exiting", async () => {
  const dir = await tempDir({
    "toolnexus.json": JSON.stringify({
      server: { timeoutMs: 500, inputTimeoutMs: 500 },
      mcpServers: { asker: { command: [process.execPath, ASKING] } },
    }),
  });
  const serve = await startServeProcess(dir);
  try {
    const res = await fetch(`${serve.url}/tools/asker_ask/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: { message: "Anyone?" } }),
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const ended = await pollUntil(serve.url, id, ["failed", "succeeded"]);
    expect(ended.error?.code).toBe("INPUT_TIMEOUT");
  } finally {
    // Resolves only once the process exited: the test's own timeout is the bound.
    await serve.stop();
  }
});
