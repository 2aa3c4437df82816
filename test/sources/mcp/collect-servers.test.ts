import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { normalizeConfig } from "../../../src/config/load.js";
import { collectServers } from "../../../src/sources/mcp/config/collect-servers.js";
import { toServerSpec } from "../../../src/sources/mcp/config/server-spec.js";

describe("toServerSpec", () => {
  it("infers the transport from url / command and applies defaults", () => {
    expect(toServerSpec("r", { url: "http://127.0.0.1:1/mcp" }, "/base")).toMatchObject({
      transport: "remote",
      timeout: 30_000,
      enabled: true,
    });
    expect(toServerSpec("l", { command: "node" }, "/base")).toMatchObject({ transport: "stdio", command: "node", args: [], cwd: "/base" });
    expect(toServerSpec("s", { type: "sse", url: "http://127.0.0.1:1/sse" }, "/b").transport).toBe("sse");
    expect(toServerSpec("h", { type: "http", url: "http://127.0.0.1:1/mcp" }, "/b").transport).toBe("streamable-http");
  });

  it("keeps prefix and protocolVersion, and refuses a 2026 pin on the SSE transport", () => {
    expect(toServerSpec("p", { url: "http://127.0.0.1:1/mcp", prefix: false, protocolVersion: "2026-07-28" }, "/b")).toMatchObject({
      prefix: false,
      protocolVersion: "2026-07-28",
    });
    expect(toServerSpec("q", { command: "x", prefix: "gh" }, "/b").prefix).toBe("gh");
    expect(() => toServerSpec("s", { type: "sse", url: "http://127.0.0.1:1/sse", protocolVersion: "2026-07-28" }, "/b")).toThrow(
      /SSE transport cannot carry/,
    );
    expect(toServerSpec("t", { type: "sse", url: "http://127.0.0.1:1/sse", protocolVersion: "2024-11-05" }, "/b").protocolVersion).toBe(
      "2024-11-05",
    );
  });

  it("accepts command as an array or as a string plus args", () => {
    expect(toServerSpec("a", { command: ["npx", "-y", "pkg"], args: ["--x"] }, "/b")).toMatchObject({
      command: "npx",
      args: ["-y", "pkg", "--x"],
    });
    expect(toServerSpec("b", { command: "npx", args: ["-y", "pkg"] }, "/b")).toMatchObject({ command: "npx", args: ["-y", "pkg"] });
  });

  it("merges env and environment, resolves cwd, and keeps their values as secrets", () => {
    const spec = toServerSpec("a", { command: "x", env: { A: "one-secret" }, environment: { B: "two-secret" }, cwd: "sub" }, "/base");
    expect(spec.env).toEqual({ A: "one-secret", B: "two-secret" });
    expect(spec.cwd).toBe(path.resolve("/base", "sub"));
    expect(spec.secrets).toEqual(expect.arrayContaining(["one-secret", "two-secret"]));
  });

  it("lets disabled:true win over enabled:true, and enabled:false disable", () => {
    expect(toServerSpec("a", { command: "x", enabled: true, disabled: true }, "/").enabled).toBe(false);
    expect(toServerSpec("a", { command: "x", enabled: false }, "/").enabled).toBe(false);
    expect(toServerSpec("a", { command: "x", disabled: false }, "/").enabled).toBe(true);
  });

  it("rejects entries that describe no server", () => {
    expect(() => toServerSpec("a", {}, "/")).toThrow(/neither command nor url/);
    expect(() => toServerSpec("a", { type: "remote" }, "/")).toThrow(/without a url/);
    expect(() => toServerSpec("a", { url: "ftp://x/y" }, "/")).toThrow(/unsupported scheme/);
  });
});

describe("collectServers", () => {
  async function dir(files: Record<string, string>): Promise<string> {
    const d = await mkdtemp(path.join(tmpdir(), "tn-mcpcfg-"));
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(d, name), text);
    return d;
  }

  it("reads all three wrappers in order and flags a duplicate name", async () => {
    const loaded = await normalizeConfig(
      {
        mcpServers: { a: { command: "x" } },
        servers: { b: { url: "http://127.0.0.1:9/mcp" } },
        mcp: { a: { command: "y" } },
      },
      { baseDir: "/srv" },
    );
    const entries = collectServers(loaded);
    expect(entries.map((e) => e.name)).toEqual(["a", "b", "a"]);
    expect(entries[0]?.spec?.command).toBe("x");
    expect(entries[2]?.error).toMatch(/duplicate/);
  });

  it("reads a Claude-desktop mcp.json, expanding ${VAR} and resolving cwd against the file", async () => {
    const d = await dir({
      "mcp.json": JSON.stringify({
        mcpServers: { fs: { command: "node", args: ["a.js"], cwd: "srv", env: { TOKEN: "${TN_TEST_TOKEN}" } } },
      }),
    });
    const loaded = await normalizeConfig({ mcpConfig: "./mcp.json" }, { baseDir: d });
    const [fs] = collectServers(loaded, { TN_TEST_TOKEN: "tok-123456" });
    expect(fs?.spec).toMatchObject({ command: "node", args: ["a.js"], cwd: path.join(d, "srv"), env: { TOKEN: "tok-123456" } });
    expect(loaded.secrets).toContain("tok-123456");
  });

  it("accepts a bare server map and ignores the reserved sibling keys", async () => {
    const d = await dir({
      "mcp.json": JSON.stringify({
        builtins: false,
        agents: {},
        a2a: {},
        mcpServer: {},
        one: { command: "x" },
        two: { url: "http://127.0.0.1:1/mcp" },
      }),
    });
    const entries = collectServers(await normalizeConfig({ mcpConfig: "mcp.json" }, { baseDir: d }));
    expect(entries.map((e) => [e.name, e.spec?.transport])).toEqual([
      ["one", "stdio"],
      ["two", "remote"],
    ]);
  });

  it("turns an unusable file into one failed entry without leaking values", async () => {
    const d = await dir({
      "bad.json": JSON.stringify({ servers: { x: { command: 5 } } }),
      "env.json": JSON.stringify({ servers: { x: { url: "${TN_MISSING_VAR}" } } }),
    });
    const [bad] = collectServers(await normalizeConfig({ mcpConfig: "bad.json" }, { baseDir: d }));
    expect(bad?.error).toMatch(/bad.json is not a valid MCP server map: \/x\/command/);
    const [env] = collectServers(await normalizeConfig({ mcpConfig: "env.json" }, { baseDir: d }), {});
    expect(env?.error).toMatch(/TN_MISSING_VAR is not set/);
  });
});
