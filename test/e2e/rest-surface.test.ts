import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { eventually } from "../helpers/wait.js";

// Real v2 SDK servers over stdio: two that publish the same URIs and prompt names, one with
// binary, HTML and garbage answers, and an MCP Apps server.
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/mcp/${name}`, import.meta.url));
const SURFACE = fixture("surface-server.mjs");
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const BOTH = "k-both-123456789";
const ALPHA = "k-alpha-123456789";
const NO_CLOCK = "k-noclock-123456789";
type Json = Record<string, unknown>;

describe("the MCP surface over REST", () => {
  let srv: TestServer;
  let auditFile: string;

  const get = (p: string, key = BOTH, headers: Record<string, string> = {}) =>
    fetch(`${srv.url}${p}`, { headers: { "x-api-key": key, ...headers } });
  const post = (p: string, body: unknown, key = BOTH) =>
    fetch(`${srv.url}${p}`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const json = async (res: Response, status = 200): Promise<Json> => {
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(status);
    return body;
  };
  const read = (uri: string, key = BOTH, headers: Record<string, string> = {}) =>
    get(`/resources/read?uri=${encodeURIComponent(uri)}`, key, headers);

  beforeAll(async () => {
    // Made by hand: tempDir's directories go after each test, this one lives for the file.
    auditFile = path.join(await mkdtemp(path.join(tmpdir(), "tn-rest-surface-")), "audit.jsonl");
    srv = await startServer({
      config: {
        server: { mcp: { enabled: true, path: "/mcp", pageSize: 2, taskAfterMs: 1000 } },
        audit: { sink: "file", path: auditFile },
        mcpServers: {
          alpha: { command: [process.execPath, SURFACE], env: { SURFACE_NAME: "alpha" } },
          beta: { command: [process.execPath, SURFACE], env: { SURFACE_NAME: "beta" } },
          bytes: { command: [process.execPath, fixture("bytes-server.mjs")] },
          apps: { command: [process.execPath, fixture("apps-server.mjs")] },
        },
        auth: {
          apiKeys: [
            { id: "both", key: BOTH, tools: ["*"] },
            { id: "alpha-only", key: ALPHA, tools: ["alpha_*"] },
            { id: "no-clock", key: NO_CLOCK, tools: ["apps_plain"] },
          ],
        },
        bundles: { justbeta: { tools: ["beta_*"] } },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
  });

  /** Every page of a list, following nextCursor. */
  async function all(route: string, key: string, field: string, query = ""): Promise<Json[]> {
    const items: Json[] = [];
    let cursor: string | undefined;
    do {
      const sep = query || cursor ? "?" : "";
      const page = await json(await get(`${route}${sep}${[query, cursor ? `cursor=${cursor}` : ""].filter(Boolean).join("&")}`, key));
      items.push(...(page[field] as Json[]));
      cursor = page.nextCursor as string | undefined;
    } while (cursor);
    return items;
  }

  it("lists both servers' same resources, templates and prompts under their own names, a page at a time", async () => {
    const first = await json(await get("/resources"));
    expect((first.resources as Json[]).length).toBe(2);
    expect(typeof first.nextCursor).toBe("string");
    const uris = (await all("/resources", BOTH, "resources")).map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(["alpha+file:///shared.txt", "beta+file:///shared.txt", "bytes+file:///pixel.png"]));
    const templates = (await all("/resources/templates", BOTH, "resourceTemplates")).map((t) => t.uriTemplate);
    expect(templates).toEqual(["alpha+file:///items/{id}", "beta+file:///items/{id}"]);
    const prompts = (await all("/prompts", BOTH, "prompts")).map((p) => p.name);
    expect(prompts).toEqual(["alpha_greet", "beta_greet"]);
    // ?server= keeps one server's.
    expect((await all("/resources", BOTH, "resources", "server=beta")).map((r) => r.uri)).toEqual([
      "beta+file:///shared.txt",
      "beta+huge://body",
    ]);
  });

  it("reads each server's resource and gets each server's prompt through its own name", async () => {
    for (const who of ["alpha", "beta"]) {
      const body = await json(await read(`${who}+file:///shared.txt`));
      expect(body).toEqual({ contents: [{ uri: `${who}+file:///shared.txt`, mimeType: "text/plain", text: `shared of ${who}` }] });
      // A `+` left unencoded in the query is the URI's own, not a space.
      const plain = await json(await get(`/resources/read?uri=${who}+file:///items/3`));
      expect((plain.contents as Json[])[0]).toMatchObject({ uri: `${who}+file:///items/3`, text: `item 3 of ${who}` });
      const got = await json(await post(`/prompts/${who}_greet/get`, { arguments: { name: "Ada" } }));
      const messages = got.messages as { content: Json }[];
      expect(messages[0]?.content).toEqual({ type: "text", text: `hello Ada from ${who}` });
      expect((messages[1]?.content.resource as Json).uri).toBe(`${who}+file:///shared.txt`);
      const done = await json(
        await post("/complete", { ref: { type: "ref/resource", uri: `${who}+file:///items/{id}` }, argument: { name: "id", value: "" } }),
      );
      expect(done).toEqual({ completion: expect.objectContaining({ values: ["one", "two"] }) });
    }
  });

  it("reads back the resource_link and embedded resource URIs of a tool result", async () => {
    const result = await json(await post("/tools/beta_point/execute", { arguments: {} }));
    const [link, embedded] = (result.metadata as { content: Json[] }).content;
    expect(link).toMatchObject({ type: "resource_link", uri: "beta+file:///shared.txt" });
    for (const uri of [link?.uri as string, (embedded?.resource as Json).uri as string]) {
      const body = await json(await read(uri));
      expect((body.contents as Json[])[0]?.uri).toBe(uri);
    }
  });

  it("answers a hidden resource or prompt exactly as one that does not exist", async () => {
    const uris = (await all("/resources", ALPHA, "resources")).map((r) => String(r.uri));
    expect(uris.some((u) => u.startsWith("beta+"))).toBe(false);
    expect(uris).toContain("alpha+file:///shared.txt");
    expect((await all("/prompts", ALPHA, "prompts")).map((p) => p.name)).toEqual(["alpha_greet"]);
    const strip = (b: Json) => ({ ...b, requestId: undefined, detail: String(b.detail).replace("beta", "gamma") });
    const hidden = await json(await read("beta+file:///shared.txt", ALPHA), 404);
    const missing = await json(await read("gamma+file:///shared.txt", ALPHA), 404);
    expect(hidden.code).toBe("RESOURCE_NOT_FOUND");
    expect(strip(hidden)).toEqual(strip(missing));
    const prompt = await json(await post("/prompts/beta_greet/get", { arguments: { name: "x" } }, ALPHA), 404);
    const none = await json(await post("/prompts/gamma_greet/get", { arguments: { name: "x" } }, ALPHA), 404);
    expect(prompt.code).toBe("PROMPT_NOT_FOUND");
    expect(strip(prompt)).toEqual(strip(none));
    const completion = await json(
      await post("/complete", { ref: { type: "ref/prompt", name: "beta_greet" }, argument: { name: "name", value: "" } }, ALPHA),
      404,
    );
    expect(completion.code).toBe("PROMPT_NOT_FOUND");
  });

  it("shows an MCP App's ui:// resource only to a caller who may use its tool", async () => {
    const uri = "ui://apps+clock/app.html";
    const allowed = await json(await read(uri));
    expect((allowed.contents as Json[])[0]).toMatchObject({ uri, mimeType: "text/html;profile=mcp-app" });
    const hidden = await json(await read(uri, NO_CLOCK), 404);
    expect(hidden.code).toBe("RESOURCE_NOT_FOUND");
  });

  it("narrows resources and prompts through ?bundle= like tools", async () => {
    expect((await all("/prompts", BOTH, "prompts", "bundle=justbeta")).map((p) => p.name)).toEqual(["beta_greet"]);
    expect((await json(await get(`/resources/read?uri=beta%2Bfile:///shared.txt&bundle=justbeta`))).contents).toHaveLength(1);
    expect((await json(await get(`/resources/read?uri=alpha%2Bfile:///shared.txt&bundle=justbeta`), 404)).code).toBe("RESOURCE_NOT_FOUND");
    expect((await json(await post("/prompts/alpha_greet/get?bundle=justbeta", { arguments: { name: "x" } }), 404)).code).toBe(
      "PROMPT_NOT_FOUND",
    );
  });

  it("answers the raw bytes with the resource's MIME type for a non-JSON Accept, sandboxed", async () => {
    const png = await read("bytes+file:///pixel.png", BOTH, { accept: "image/png,image/*" });
    expect(png.status).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await png.arrayBuffer()).equals(Buffer.from(PNG, "base64"))).toBe(true);
    const page = await read("bytes+file:///page.html", BOTH, { accept: "text/html,application/xhtml+xml,*/*;q=0.8" });
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("content-security-policy")).toBe("sandbox");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await page.text()).toBe("<p>hi</p><script>alert(1)</script>");
    // JSON when asked for, or when anything goes.
    for (const accept of ["application/json", "*/*"]) {
      const body = await json(await read("bytes+file:///pixel.png", BOTH, { accept }));
      expect((body.contents as Json[])[0]).toMatchObject({ blob: PNG, mimeType: "image/png" });
    }
  });

  it("refuses bad input with a problem and a stable code", async () => {
    const problem = async (res: Response, status: number, code: string) => {
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect((await json(res, status)).code).toBe(code);
    };
    await problem(await read("nope+file:///shared.txt"), 404, "RESOURCE_NOT_FOUND");
    // A percent-encoded URI is never decoded on its way: it names no prefix anyone has.
    await problem(await read("alpha%2Bfile:///shared.txt"), 404, "RESOURCE_NOT_FOUND");
    await problem(await read("alpha+file:///items/../shared.txt"), 400, "INVALID_REQUEST");
    await problem(await read("alpha+file:///items/%2e%2e/x"), 400, "INVALID_REQUEST");
    await problem(await get("/resources/read"), 400, "INVALID_REQUEST");
    await problem(await get("/resources?cursor=bm9wZQ"), 400, "INVALID_REQUEST");
    await problem(await post("/prompts/alpha_greet/get", { arguments: { name: 42 } }), 400, "INVALID_REQUEST");
    // The server itself refuses a missing required argument.
    await problem(await post("/prompts/alpha_greet/get", {}), 422, "INVALID_ARGUMENTS");
    await problem(await post("/complete", { ref: { type: "ref/prompt" }, argument: { name: "a", value: "" } }), 400, "INVALID_REQUEST");
    // An upstream answering more than the gateway holds, or garbage: a 502, not the body.
    await problem(await read("alpha+huge://body"), 502, "UPSTREAM_UNAVAILABLE");
    const garbage = await read("bytes+file:///garbage");
    const text = await garbage.text();
    expect([garbage.status, (JSON.parse(text) as Json).code]).toEqual([502, "UPSTREAM_UNAVAILABLE"]);
    expect(text).not.toContain("surprise");
  });

  it("writes an audit line for each read, prompt get and completion, as on /mcp", async () => {
    await json(await read("alpha+file:///shared.txt"));
    await json(await post("/prompts/beta_greet/get", { arguments: { name: "x" } }));
    await json(await post("/complete", { ref: { type: "ref/prompt", name: "alpha_greet" }, argument: { name: "name", value: "" } }));
    // The file sink writes asynchronously.
    await eventually(async () => (await readFile(auditFile, "utf8").catch(() => "")).includes("completion/complete alpha_greet"));
    const lines = (await readFile(auditFile, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Json);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ transport: "rest", principal: "both", tool: "resources/read alpha+file:///shared.txt", outcome: "ok" }),
        expect.objectContaining({ transport: "rest", principal: "both", tool: "prompts/get beta_greet", outcome: "ok" }),
        expect.objectContaining({ transport: "rest", principal: "both", tool: "completion/complete alpha_greet", outcome: "ok" }),
      ]),
    );
  });

  it("shows the caller's resources and prompts in the portal, escaped", async () => {
    const doc = await json(await get("/docs/json"));
    const tags = Object.fromEntries((doc.tags as { name: string; description: string }[]).map((t) => [t.name, t.description]));
    expect(tags.resources).toContain("alpha\\+file\\:///shared\\.txt");
    expect(tags.prompts).toContain("beta\\_greet");
    // The page resource's description is markup: it shows as characters only.
    expect(tags.resources).toContain("&lt;img src=x onerror=alert\\(1\\)&gt; \\[click\\]\\(javascript\\:alert\\(1\\)\\)");
    expect(tags.resources).not.toMatch(/<img|\]\(javascript/);
    const alphaOnly = await json(await get("/docs/json", ALPHA));
    expect(JSON.stringify(alphaOnly.tags)).not.toContain("beta");
  });
});
