import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createToolkit } from "../../../src/create-toolkit.js";
import type { Progress } from "../../../src/core/types.js";
import { startServer } from "../../helpers/server.js";
import { eventually, faultServer, FAULT_SERVER, fixtureLog } from "./fixture.js";
import { freePort } from "../../helpers/free-port.js";

const EVERYTHING = fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));

describe("McpServerSource", () => {
  it("forwards MCP progress notifications to ctx.onProgress", async () => {
    const tk = await createToolkit({ mcpServers: { everything: { command: [process.execPath, EVERYTHING, "stdio"] } } });
    try {
      const seen: Progress[] = [];
      const r = await tk.execute(
        "everything_trigger-long-running-operation",
        { duration: 0.3, steps: 3 },
        { timeout: 10_000, onProgress: (p) => seen.push(p) },
      );
      expect(r.isError).toBe(false);
      expect(seen.map((p) => [p.progress, p.total])).toEqual([
        [1, 3],
        [2, 3],
        [3, 3],
      ]);
    } finally {
      await tk.close();
    }
  });

  it("applies the per-server tools allowlist and warns about unknown names", async () => {
    const srv = await startServer({ config: { mcpServers: { fx: faultServer({}, { tools: { echo: true, fail: true, nope: true } }) } } });
    try {
      const names = srv.app.toolnexus.state
        .toolkit()
        .tools()
        .map((t) => t.name);
      expect(names.filter((n) => n.startsWith("fx_"))).toEqual(["fx_echo", "fx_fail"]);
      expect(
        srv.logs.some((l) => l.msg === "mcp tools filter names tools the server does not have" && JSON.stringify(l.unknown) === '["nope"]'),
      ).toBe(true);
    } finally {
      await srv.close();
    }
  });

  it("shows disabled servers and failures without secrets", async () => {
    process.env.TN_MCP_TEST_KEY = "very-secret-key-42";
    const port = await freePort(); // nothing listens there
    try {
      const srv = await startServer({
        config: {
          mcpServers: {
            off: { command: "x", enabled: true, disabled: true },
            missing: { command: "/nonexistent/mcp-server-binary", env: { API_KEY: "${TN_MCP_TEST_KEY}" } },
            down: {
              url: `http://127.0.0.1:${port}/mcp?key=\${TN_MCP_TEST_KEY}`,
              headers: { authorization: "Bearer ${TN_MCP_TEST_KEY}" },
              timeout: 1000,
            },
          },
        },
      });
      try {
        const res = await fetch(`${srv.url}/status`);
        const text = await res.text();
        const byName = Object.fromEntries(
          (JSON.parse(text) as { sources: { name: string; state: string; error?: string }[] }).sources.map((s) => [s.name, s]),
        );
        expect(byName.off?.state).toBe("disabled");
        expect(byName.missing).toMatchObject({ state: "failed", error: expect.stringMatching(/ENOENT/) });
        expect(byName.down).toMatchObject({ state: "failed", error: "cannot reach the server: connection refused (ECONNREFUSED)" });
        expect(text).not.toContain("very-secret-key-42");
        expect(srv.logText()).not.toContain("very-secret-key-42");
      } finally {
        await srv.close();
      }
    } finally {
      delete process.env.TN_MCP_TEST_KEY;
    }
  });

  it("reconnects to a streamable-HTTP server that went away and came back", async () => {
    const port = await freePort();
    const start = () =>
      new Promise<ReturnType<typeof spawn>>((resolve) => {
        const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
          env: { ...process.env, PORT: String(port) },
          stdio: ["ignore", "ignore", "pipe"],
        });
        child.stderr?.on("data", (d: Buffer) => {
          if (/listening on port/i.test(String(d))) resolve(child);
        });
      });
    let child = await start();
    const tk = await createToolkit({ mcpServers: { remote: { url: `http://127.0.0.1:${port}/mcp`, timeout: 2000 } } });
    try {
      expect((await tk.execute("remote_echo", { message: "1" })).output).toBe("Echo: 1");
      child.kill();
      await new Promise((r) => child.once("exit", r));
      await expect(tk.execute("remote_echo", { message: "2" })).rejects.toMatchObject({ code: "UPSTREAM_UNAVAILABLE" });
      expect(tk.tools().map((t) => t.name)).toContain("remote_echo");
      child = await start();
      const r = await eventually(async () => tk.execute("remote_echo", { message: "3" }).catch(() => undefined), 15_000, "reconnected");
      expect(r.output).toBe("Echo: 3");
    } finally {
      await tk.close();
      child.kill();
    }
  });

  it("loads the servers of an mcpConfig file (a bare map, reserved keys ignored)", async () => {
    const { dir } = await fixtureLog();
    await writeFile(
      path.join(dir, "mcp.json"),
      JSON.stringify({ builtins: { enabled: false }, agents: {}, fx: { command: process.execPath, args: [FAULT_SERVER] } }),
    );
    const tk = await createToolkit({ mcpConfig: "./mcp.json" }, { baseDir: dir });
    try {
      expect(tk.status().map((s) => [s.name, s.state])).toEqual([["fx", "connected"]]);
      expect((await tk.execute("fx_echo", { text: "from file" })).output).toBe("from file");
    } finally {
      await tk.close();
    }
  });

  it("sends remote MCP traffic through the egress guard", async () => {
    const port = await freePort();
    const tk = await createToolkit({
      egress: { deny: ["127.0.0.1/32"] },
      mcpServers: { remote: { url: `http://127.0.0.1:${port}/mcp`, timeout: 2000 } },
    });
    try {
      expect(tk.status()[0]).toMatchObject({
        state: "failed",
        error: expect.stringMatching(/^cannot reach the server: egress to 127\.0\.0\.1 refused/),
      });
    } finally {
      await tk.close();
    }
  });

  it("logs a server's stderr at debug with its env values scrubbed", async () => {
    const srv = await startServer({ config: { mcpServers: { fx: faultServer({ PRINT_TO_STDERR: "stderr-secret-123" }) } } });
    try {
      await eventually(
        () => srv.logs.find((l) => l.name === "fx" && l.level === 20 && l.stderr === "my token is [redacted]"),
        3000,
        "scrubbed stderr line",
      );
      expect(srv.logText()).not.toContain("stderr-secret-123");
    } finally {
      await srv.close();
    }
  });
});
