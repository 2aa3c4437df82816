import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { CLI } from "../helpers/serve-process.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = path.resolve(import.meta.dirname, "../..");

describe("the audit trail of toolnexus mcp (stdio)", () => {
  it("writes one audit line per call to stderr (stdout carries only protocol), without the configured secret", async () => {
    const secret = `stdio-secret-${Math.random().toString(36).slice(2)}`;
    const dir = await tempDir({
      "toolnexus.yaml": [
        `plugins: [${JSON.stringify(path.join(root, "examples/config/plugins/*.mjs"))}]`,
        // A configured secret: the http tool's URL holds it.
        "http: [{ name: leaky, method: GET, url: 'http://127.0.0.1:9/x?token=${STDIO_AUDIT_SECRET}' }]",
        "audit: { sink: stdout, arguments: full }",
      ].join("\n"),
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", "--config", dir],
      stderr: "pipe",
      env: { ...process.env, STDIO_AUDIT_SECRET: secret } as Record<string, string>,
    });
    let stderr = "";
    transport.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: "audit-stdio-test", version: "1.0.0" });
    const protocolErrors: Error[] = [];
    client.onerror = (err) => protocolErrors.push(err);
    await client.connect(transport);
    try {
      await client.callTool({ name: "echo", arguments: { text: secret } });
      await client.callTool({ name: "divide", arguments: { a: 1, b: 0 } });
      const audit = () =>
        stderr
          .split("\n")
          .filter((l) => l.includes('"type":"audit"'))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      await expect.poll(() => audit().length, { timeout: 5_000 }).toBe(2);
      expect(audit().map((l) => [l.transport, l.tool, l.outcome, l.principal])).toEqual([
        ["stdio", "echo", "ok", "anonymous"],
        ["stdio", "divide", "tool_error", "anonymous"],
      ]);
      expect(audit()[0]?.arguments).toEqual({ text: "[redacted]" });
      expect(stderr).not.toContain(secret);
      expect(protocolErrors).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
