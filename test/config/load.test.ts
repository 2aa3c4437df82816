import path from "node:path";
import { describe, expect, it } from "vitest";
import { configPathFrom, loadConfig, normalizeConfig } from "../../src/config/load.js";
import { configErrorOf } from "../helpers/config-issues.js";
import { tempDir } from "../helpers/temp-dir.js";

const PLUGIN = "export default { name: 'p', description: 'd', run: () => 'ok' };\n";

describe("loadConfig", () => {
  it("reads YAML, applies defaults and resolves paths against the file's directory", async () => {
    const dir = await tempDir({
      "conf/toolnexus.yaml": "plugins: [./plugins/*.mjs]\nskills: [./skills]\nserver: { port: 9000 }\n",
      "conf/plugins/a.mjs": PLUGIN,
      "conf/skills/.keep": "",
    });
    const { config, file, baseDir } = await loadConfig(path.join(dir, "conf", "toolnexus.yaml"));
    expect(file).toBe(path.join(dir, "conf", "toolnexus.yaml"));
    expect(baseDir).toBe(path.join(dir, "conf"));
    expect(config.server).toMatchObject({
      port: 9000,
      host: "127.0.0.1",
      timeoutMs: 60000,
      maxTimeoutMs: 600000,
      maxConcurrent: 256,
      bodyLimitBytes: 1048576,
    });
    expect(config.plugins).toEqual([path.join(dir, "conf", "plugins", "a.mjs")]);
    expect(config.skills).toEqual([path.join(dir, "conf", "skills")]);
  });

  it("reads JSON, and a directory means the toolnexus.* (else mcp.json) inside it", async () => {
    const a = await tempDir({ "toolnexus.json": '{"server":{"port":1234}}', "mcp.json": '{"server":{"port":1}}' });
    expect((await loadConfig(a)).config.server.port).toBe(1234);
    const b = await tempDir({ "mcp.json": '{"mcpServers":{}}' });
    expect((await loadConfig(b)).file).toBe(path.join(b, "mcp.json"));
    const c = await tempDir({ "other.yaml": "" });
    expect(await configErrorOf(loadConfig(c))).toContain("holds none of toolnexus.yaml");
  });

  it("accepts a plain Claude-desktop mcp.json", async () => {
    const dir = await tempDir({
      "mcp.json": JSON.stringify({ mcpServers: { fs: { command: "npx", args: ["-y", "server-filesystem", "/tmp"], env: { A: "b" } } } }),
    });
    expect((await loadConfig(dir)).config.mcpServers?.fs?.args).toEqual(["-y", "server-filesystem", "/tmp"]);
  });

  it("expands ${VAR} and ${VAR:-default}, and remembers expanded values as secrets", async () => {
    const loaded = await normalizeConfig(
      { http: [{ name: "t", url: "http://127.0.0.1/${PATH_PART:-x}", headers: { Authorization: "Bearer ${TOKEN}" } }] },
      { env: { TOKEN: "s3cret-value" } },
    );
    expect(loaded.config.http?.[0]).toMatchObject({ url: "http://127.0.0.1/x", headers: { Authorization: "Bearer s3cret-value" } });
    expect(loaded.secrets).toEqual(["s3cret-value"]);
  });

  it("reads ${file:/abs/path} secrets (one trailing newline dropped) and scrubs them like env values", async () => {
    const dir = await tempDir({ token: "from-a-file-secret\n" });
    const loaded = await normalizeConfig({ auth: { apiKeys: [{ id: "k", key: `\${file:${path.join(dir, "token")}}` }] } }, { env: {} });
    expect(loaded.config.auth?.apiKeys[0]?.key).toBe("from-a-file-secret");
    expect(loaded.secrets).toEqual(["from-a-file-secret"]);
    const missing = await configErrorOf(
      normalizeConfig({ auth: { apiKeys: [{ id: "k", key: `\${file:${path.join(dir, "none")}}` }] } }, { env: {} }),
    );
    expect(missing).toBe(`config error: /auth/apiKeys/0/key cannot read ${path.join(dir, "none")} (ENOENT)`);
    expect(await configErrorOf(normalizeConfig({ auth: { apiKeys: [{ id: "k", key: "${file:rel/token}" }] } }, { env: {} }))).toContain(
      "needs an absolute path",
    );
  });

  it("refuses a headers timeout longer than the request timeout (Node would throw at listen)", async () => {
    const msg = await configErrorOf(normalizeConfig({ server: { headersTimeoutMs: 40_000, requestTimeoutMs: 30_000 } }, { env: {} }));
    expect(msg).toBe("config error: /server/headersTimeoutMs must not exceed server.requestTimeoutMs");
  });

  it("a missing variable is an error naming the key, never an empty string", async () => {
    const msg = await configErrorOf(normalizeConfig({ auth: { apiKeys: [{ id: "ci", key: "${CI_KEY}" }] } }, { env: {} }));
    expect(msg).toBe("config error: /auth/apiKeys/0/key environment variable CI_KEY is not set");
  });

  it("reports every failing path at once, unknown keys included", async () => {
    const dir = await tempDir({ "toolnexus.yaml": "server: { port: eighty, colour: red }\nplugins: [./none/*.mjs]\nbogus: 1\n" });
    const msg = await configErrorOf(loadConfig(dir));
    expect(msg).toContain("/server/port must be integer");
    expect(msg).toContain("/server/colour is not a known key");
    expect(msg).toContain("/bogus is not a known key");
  });

  it("checks paths once the shape is valid: missing plugins and skills are named", async () => {
    const dir = await tempDir({ "toolnexus.yaml": "plugins: [./p/*.mjs, ./q.mjs]\nskills: [./nope]\n", "p/a.mjs": PLUGIN });
    expect(await configErrorOf(loadConfig(dir))).toBe(
      `config error in ${path.join(dir, "toolnexus.yaml")}: /plugins/1 not found; /skills/0 not found`,
    );
  });

  it("rejects text that is not YAML or JSON, and a top level that is not an object", async () => {
    const a = await tempDir({ "toolnexus.yaml": "server: [unclosed\n" });
    expect(await configErrorOf(loadConfig(a))).toContain("is not valid YAML or JSON");
    const b = await tempDir({ "toolnexus.yaml": "- a\n- b\n" });
    expect(await configErrorOf(loadConfig(b))).toContain("/ must be an object");
  });

  it("folds a union's noise into one message per path", async () => {
    const msg = await configErrorOf(normalizeConfig({ builtins: "yes" }));
    expect(msg).toBe("config error: /builtins does not match any allowed form");
  });

  it("takes the path from --config, else TOOLNEXUS_CONFIG", () => {
    expect(configPathFrom("a.yaml", { TOOLNEXUS_CONFIG: "b.yaml" })).toBe("a.yaml");
    expect(configPathFrom(undefined, { TOOLNEXUS_CONFIG: "b.yaml" })).toBe("b.yaml");
    expect(configPathFrom(undefined, {})).toBeUndefined();
  });
});

describe("API key rules", () => {
  it("rejects repeated ids and keys with neither or both of key and sha256", async () => {
    const sha = "a".repeat(64);
    const err = await normalizeConfig({
      auth: {
        apiKeys: [
          { id: "team", key: "0123456789abcdef0" },
          { id: "team", sha256: sha },
          { id: "none" },
          { id: "both", key: "0123456789abcdef0", sha256: sha },
        ],
      },
    }).catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      "config error: /auth/apiKeys/1/id repeats the id of /auth/apiKeys/0; /auth/apiKeys/2 needs exactly one of key and sha256; /auth/apiKeys/3 needs exactly one of key and sha256",
    );
  });

  it("bounds timeouts below the timer overflow", async () => {
    const err = await normalizeConfig({ server: { maxTimeoutMs: 2 ** 31 } }).catch((e: unknown) => e);
    expect((err as Error).message).toContain("/server/maxTimeoutMs must be <= 2147483647");
  });
});
