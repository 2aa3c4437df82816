import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createToolkit } from "../../src/create-toolkit.js";
import type { Toolkit } from "../../src/core/toolkit.js";

// A server that redirects everything to a second one, which records what reaches it.
async function redirectPair() {
  const seen: http.IncomingHttpHeaders[] = [];
  const target = http.createServer((req, res) => {
    seen.push(req.headers);
    res.end("{}");
  });
  await new Promise<void>((r) => target.listen(0, "127.0.0.2", r));
  const targetUrl = `http://127.0.0.2:${(target.address() as { port: number }).port}`;
  const redirector = http.createServer((req, res) => {
    res.writeHead(307, { location: `${targetUrl}${req.url ?? "/"}` });
    res.end();
  });
  await new Promise<void>((r) => redirector.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(redirector.address() as { port: number }).port}`;
  const close = async () => {
    await new Promise((r) => redirector.close(r));
    await new Promise((r) => target.close(r));
  };
  return { url, seen, close };
}

let tk: Toolkit | undefined;
let done: (() => Promise<void>) | undefined;
afterEach(async () => {
  await tk?.close();
  await done?.();
  tk = undefined;
  done = undefined;
});

describe("configured A2A credentials never follow a redirect", () => {
  it("A2A: a redirecting agent fails to load and the redirect target sees nothing", async () => {
    const pair = await redirectPair();
    done = pair.close;
    tk = await createToolkit({
      agents: { peer: { card: `${pair.url}/.well-known/agent-card.json`, headers: { "X-Api-Key": "agent-secret-123456" } } },
    });
    const [status] = tk.status();
    expect(status).toMatchObject({ source: "a2a", name: "peer", state: "failed" });
    expect(status?.error).toContain("redirect");
    expect(pair.seen).toEqual([]);
  });
});
