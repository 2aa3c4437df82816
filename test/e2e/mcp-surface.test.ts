import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { errorOf, namesOf, result, rpc, type Json } from "../helpers/surface-rpc.js";
import { eventually } from "../helpers/wait.js";

const SURFACE = fileURLToPath(new URL("../fixtures/mcp/surface-server.mjs", import.meta.url));
describe("resources, templates, prompts and completions of MCP servers through the gateway", () => {
  let srv: TestServer;
  let auditFile: string;

  beforeAll(async () => {
    // Made by hand: tempDir's directories go after each test, this one lives for the file.
    auditFile = path.join(await mkdtemp(path.join(tmpdir(), "tn-surface-audit-")), "audit.jsonl");
    srv = await startServer({
      config: {
        audit: { sink: "file", path: auditFile },
        mcpServers: {
          alpha: { command: [process.execPath, SURFACE], env: { SURFACE_NAME: "alpha" } },
          beta: { command: [process.execPath, SURFACE], env: { SURFACE_NAME: "beta" } },
        },
        auth: {
          apiKeys: [
            { id: "both", key: "k-both-123456789", tools: ["*"] },
            { id: "alpha-only", key: "k-alpha-123456789", tools: ["alpha_*"] },
            // Globs grant what they name instead of its tools' servers: beta's, though it may use only alpha's tools.
            { id: "globbed", key: "k-glob-123456789", tools: ["alpha_*"], resources: ["beta+file:///shared*"], prompts: ["beta_*"] },
          ],
        },
        bundles: {
          justbeta: { tools: ["beta_*"] },
          alphaitems: { tools: ["*"], resources: ["alpha+file:///items/*"], prompts: ["none"] },
        },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
  });

  for (const era of ["2025", "2026"] as const) {
    it(`lists both servers' same-named resources and prompts under their own names, and reads each (${era})`, async () => {
      const mcp = `${srv.url}/mcp`;
      const resources = (result(await rpc(mcp, "resources/list", {}, era, "k-both-123456789")).resources as Json[]).map((r) => r.uri);
      expect(resources).toEqual(expect.arrayContaining(["alpha+file:///shared.txt", "beta+file:///shared.txt"]));
      const templates = (result(await rpc(mcp, "resources/templates/list", {}, era, "k-both-123456789")).resourceTemplates as Json[]).map(
        (t) => t.uriTemplate,
      );
      expect(templates).toEqual(["alpha+file:///items/{id}", "beta+file:///items/{id}"]);
      const prompts = (result(await rpc(mcp, "prompts/list", {}, era, "k-both-123456789")).prompts as Json[]).map((p) => p.name);
      expect(prompts).toEqual(["alpha_greet", "beta_greet"]);
      for (const who of ["alpha", "beta"]) {
        const read = result(await rpc(mcp, "resources/read", { uri: `${who}+file:///shared.txt` }, era, "k-both-123456789"));
        expect(read.contents).toEqual([{ uri: `${who}+file:///shared.txt`, mimeType: "text/plain", text: `shared of ${who}` }]);
        const item = result(await rpc(mcp, "resources/read", { uri: `${who}+file:///items/3` }, era, "k-both-123456789"));
        expect((item.contents as Json[])[0]).toMatchObject({ uri: `${who}+file:///items/3`, text: `item 3 of ${who}` });
        const got = result(await rpc(mcp, "prompts/get", { name: `${who}_greet`, arguments: { name: "Ada" } }, era, "k-both-123456789"));
        const messages = got.messages as { content: Json }[];
        expect(messages[0]?.content).toEqual({ type: "text", text: `hello Ada from ${who}` });
        // The embedded resource's URI is the catalog's.
        expect((messages[1]?.content.resource as Json).uri).toBe(`${who}+file:///shared.txt`);
        const done = result(
          await rpc(
            mcp,
            "completion/complete",
            { ref: { type: "ref/resource", uri: `${who}+file:///items/{id}` }, argument: { name: "id", value: "" } },
            era,
            "k-both-123456789",
          ),
        );
        expect((done.completion as Json).values).toEqual(["one", "two"]);
      }
    });
  }

  it("rewrites a tool result's resource_link and embedded resource so the caller can read them back", async () => {
    const mcp = `${srv.url}/mcp`;
    const called = result(await rpc(mcp, "tools/call", { name: "beta_point", arguments: {} }, "2025", "k-both-123456789"));
    const [link, embedded] = called.content as Json[];
    expect(link).toMatchObject({ type: "resource_link", uri: "beta+file:///shared.txt" });
    expect((embedded?.resource as Json).uri).toBe("beta+file:///items/7");
    for (const uri of [link?.uri, (embedded?.resource as Json).uri]) {
      const read = result(await rpc(mcp, "resources/read", { uri }, "2026", "k-both-123456789"));
      expect((read.contents as Json[])[0]?.uri).toBe(uri);
    }
  });

  it("shows a caller none of a server whose tools it may not use, and answers for it as for nothing", async () => {
    const mcp = `${srv.url}/mcp`;
    const key = "k-alpha-123456789";
    const resources = (result(await rpc(mcp, "resources/list", {}, "2026", key)).resources as Json[]).map((r) => r.uri);
    expect(resources.some((u) => String(u).startsWith("beta+"))).toBe(false);
    expect(resources).toContain("alpha+file:///shared.txt");
    const prompts = (result(await rpc(mcp, "prompts/list", {}, "2026", key)).prompts as Json[]).map((p) => p.name);
    expect(prompts).toEqual(["alpha_greet"]);
    const hidden = errorOf(await rpc(mcp, "resources/read", { uri: "beta+file:///shared.txt" }, "2026", key));
    const missing = errorOf(await rpc(mcp, "resources/read", { uri: "gamma+file:///shared.txt" }, "2026", key));
    expect(hidden.code).toBe(-32602);
    expect(missing.code).toBe(-32602);
    expect(hidden.message.replace("beta", "gamma")).toBe(missing.message);
    expect(hidden.data).toEqual({ uri: "beta+file:///shared.txt" });
    const prompt = errorOf(await rpc(mcp, "prompts/get", { name: "beta_greet", arguments: { name: "x" } }, "2026", key));
    const none = errorOf(await rpc(mcp, "prompts/get", { name: "gamma_greet", arguments: { name: "x" } }, "2026", key));
    expect(prompt.code).toBe(-32602);
    expect(prompt.message.replace("beta", "gamma")).toBe(none.message);
  });

  it("narrows resources and prompts through a bundle like tools", async () => {
    const mcp = `${srv.url}/bundles/justbeta/mcp`;
    const prompts = (result(await rpc(mcp, "prompts/list", {}, "2025", "k-both-123456789")).prompts as Json[]).map((p) => p.name);
    expect(prompts).toEqual(["beta_greet"]);
    const read = result(await rpc(mcp, "resources/read", { uri: "beta+file:///shared.txt" }, "2025", "k-both-123456789"));
    expect((read.contents as Json[])[0]?.text).toBe("shared of beta");
    expect(errorOf(await rpc(mcp, "resources/read", { uri: "alpha+file:///shared.txt" }, "2025", "k-both-123456789")).code).toBe(-32602);
  });

  for (const era of ["2025", "2026"] as const)
    it(`shows a key with resources and prompts globs what they name, and nothing else (${era})`, async () => {
      const mcp = `${srv.url}/mcp`;
      const key = "k-glob-123456789";
      expect(namesOf(await rpc(mcp, "resources/list", {}, era, key), "resources", "uri")).toEqual(["beta+file:///shared.txt"]);
      expect(namesOf(await rpc(mcp, "resources/templates/list", {}, era, key), "resourceTemplates", "uriTemplate")).toEqual([]);
      expect(namesOf(await rpc(mcp, "prompts/list", {}, era, key), "prompts", "name")).toEqual(["beta_greet"]);
      const read = result(await rpc(mcp, "resources/read", { uri: "beta+file:///shared.txt" }, era, key));
      expect((read.contents as Json[])[0]?.text).toBe("shared of beta");
      // Its tools' server's own resources and prompts: as if they did not exist.
      const hidden = errorOf(await rpc(mcp, "resources/read", { uri: "alpha+file:///shared.txt" }, era, key));
      const missing = errorOf(await rpc(mcp, "resources/read", { uri: "alpha+file:///nothing.txt" }, era, key));
      expect(hidden.code).toBe(-32602);
      expect(hidden.message.replace("shared", "nothing")).toBe(missing.message);
      expect(errorOf(await rpc(mcp, "prompts/get", { name: "alpha_greet", arguments: { name: "x" } }, era, key)).code).toBe(-32602);
      const completion = { ref: { type: "ref/resource", uri: "beta+file:///items/{id}" }, argument: { name: "id", value: "" } };
      expect(errorOf(await rpc(mcp, "completion/complete", completion, era, key)).code).toBe(-32602);
    });

  it("narrows resources and prompts by a bundle's own globs", async () => {
    const mcp = `${srv.url}/bundles/alphaitems/mcp`;
    const key = "k-both-123456789";
    expect(namesOf(await rpc(mcp, "resources/list", {}, "2026", key), "resources", "uri")).toEqual([]);
    expect(namesOf(await rpc(mcp, "resources/templates/list", {}, "2026", key), "resourceTemplates", "uriTemplate")).toEqual([
      "alpha+file:///items/{id}",
    ]);
    expect(namesOf(await rpc(mcp, "prompts/list", {}, "2026", key), "prompts", "name")).toEqual([]);
    const item = result(await rpc(mcp, "resources/read", { uri: "alpha+file:///items/4" }, "2026", key));
    expect((item.contents as Json[])[0]?.text).toBe("item 4 of alpha");
    expect(errorOf(await rpc(mcp, "resources/read", { uri: "alpha+file:///shared.txt" }, "2026", key)).code).toBe(-32602);
    expect(errorOf(await rpc(mcp, "prompts/get", { name: "alpha_greet", arguments: { name: "x" } }, "2026", key)).code).toBe(-32602);
  });

  it("refuses bad input with the specified errors", async () => {
    const mcp = `${srv.url}/mcp`;
    const key = "k-both-123456789";
    for (const uri of [
      "nope+file:///shared.txt",
      "alpha%2Bfile:///shared.txt",
      "alpha+file:///items/../shared.txt",
      "alpha+file:///items/%2e%2e/x",
      // A template variable climbing out of file:///items/{id}.
      "alpha+file:///items/%2E%2E%2Fshared.txt",
      "alpha+file:///items/..%5Cshared.txt",
    ]) {
      const err = errorOf(await rpc(mcp, "resources/read", { uri }, "2026", key));
      expect(err.code, uri).toBe(-32602);
    }
    const wrongType = errorOf(await rpc(mcp, "prompts/get", { name: "alpha_greet", arguments: { name: 42 } }, "2026", key));
    expect(wrongType.code).toBe(-32602);
    // An upstream answering with more than the gateway accepts: an error, not the body.
    const huge = errorOf(await rpc(mcp, "resources/read", { uri: "alpha+huge://body" }, "2026", key));
    expect(huge.code).toBe(-32000);
    expect((huge.data as Json).code).toBe("UPSTREAM_UNAVAILABLE");
  });

  it("writes an audit line for each read and prompt get", async () => {
    await rpc(`${srv.url}/mcp`, "resources/read", { uri: "alpha+file:///shared.txt" }, "2025", "k-both-123456789");
    await rpc(`${srv.url}/mcp`, "prompts/get", { name: "beta_greet", arguments: { name: "x" } }, "2025", "k-both-123456789");
    // The file sink writes asynchronously.
    await eventually(async () => (await readFile(auditFile, "utf8").catch(() => "")).includes("prompts/get beta_greet"));
    const lines = (await readFile(auditFile, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Json);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ principal: "both", tool: "resources/read alpha+file:///shared.txt", outcome: "ok" }),
        expect.objectContaining({ principal: "both", tool: "prompts/get beta_greet", outcome: "ok" }),
      ]),
    );
  });
});
