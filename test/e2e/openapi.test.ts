import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { closedPort } from "../sources/http/upstream.js";
import { executeTool } from "../helpers/execute.js";

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/openapi");
const CANARY_VAR = `TN_OPENAPI_CANARY_${process.pid}`;
const canary = `oa-${randomBytes(12).toString("hex")}`;

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A tiny petstore + tic-tac-toe backend implementing a few operations of the fixtures. */
async function startBackend(host = "127.0.0.1"): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const u = new URL(req.url ?? "/", "http://x");
      const json = (status: number, v: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(v));
      };
      let m: RegExpExecArray | null;
      if (u.pathname === "/api/v3/openapi.json") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(readFileSync(path.join(FIXTURES, "petstore3.json")));
      } else if (req.method === "GET" && u.pathname === "/api/v3/pet/findByStatus") {
        json(200, [{ id: 1, name: "rex", status: u.searchParams.get("status"), photoUrls: [] }]);
      } else if ((m = /^\/api\/v3\/pet\/(\d+)$/.exec(u.pathname)) && req.method === "GET") {
        if (m[1] === "1") json(200, { id: 1, name: "rex", photoUrls: [] });
        else json(404, { code: 404, message: "Pet not found" });
      } else if (req.method === "DELETE" && /^\/api\/v3\/pet\/\d+$/.test(u.pathname)) {
        res.end("Pet deleted");
      } else if (req.method === "POST" && u.pathname === "/api/v3/pet") {
        json(200, { ...(JSON.parse(body) as object), id: 99 });
      } else if (req.method === "POST" && u.pathname === "/api/v3/user/createWithList") {
        json(200, (JSON.parse(body) as unknown[])[0]);
      } else if ((m = /^\/board\/(\d)\/(\d)$/.exec(u.pathname)) && req.method === "PUT") {
        const mark = JSON.parse(body) as string;
        const board = [
          [".", ".", "."],
          [".", ".", "."],
          [".", ".", "."],
        ];
        (board[Number(m[1]) - 1] as string[])[Number(m[2]) - 1] = mark;
        json(200, { winner: ".", board });
      } else {
        json(404, { message: "no route" });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://${host}:${port}`, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let backend: Awaited<ReturnType<typeof startBackend>>;
let denied: Awaited<ReturnType<typeof startBackend>>;
let srv: TestServer;
let dead: number;

async function execute(name: string, args: Record<string, unknown> = {}) {
  const res = await executeTool(srv.url, name, { arguments: args });
  return { status: res.status, body: (await res.json()) as { output: string; isError: boolean; metadata?: unknown; code?: string } };
}

beforeAll(async () => {
  process.env[CANARY_VAR] = canary;
  backend = await startBackend();
  denied = await startBackend("127.0.0.2");
  dead = await closedPort();
  srv = await startServer({
    config: {
      egress: { deny: ["127.0.0.2"] },
      openapi: [
        {
          // Served over loopback: the document is fetched through the egress guard, and its relative server resolves against this URL.
          spec: `${backend.url}/api/v3/openapi.json`,
          prefix: "petstore",
          headers: { Authorization: `Bearer \${${CANARY_VAR}}` },
          operations: { getPetById: true, addPet: true, findPetsByStatus: true, deletePet: true, createUsersWithListInput: true },
        },
        { spec: path.join(FIXTURES, "tictactoe-3.1.yaml"), baseUrl: backend.url, prefix: "ttt" },
        { spec: path.join(FIXTURES, "petstore-2.0.json"), prefix: "v2", operations: { listPets: false } },
        { spec: `http://127.0.0.1:${dead}/openapi.json`, prefix: "broken", headers: { "X-Key": `\${${CANARY_VAR}}` } },
        { spec: `${denied.url}/api/v3/openapi.json`, prefix: "walled" },
      ],
    },
  });
});
afterAll(async () => {
  await srv?.close();
  await backend?.close();
  await denied?.close();
  delete process.env[CANARY_VAR];
});

describe("OpenAPI import over REST", () => {
  it("exposes the selected operations as prefix_operationId tools", async () => {
    const { tools } = (await (await fetch(`${srv.url}/tools?source=http`)).json()) as { tools: { name: string; description: string }[] };
    expect(tools.map((t) => t.name).sort()).toEqual([
      "petstore_addPet",
      "petstore_createUsersWithListInput",
      "petstore_deletePet",
      "petstore_findPetsByStatus",
      "petstore_getPetById",
      "ttt_get-board",
      "ttt_get-square",
      "ttt_put-square",
      "v2_createPets",
      "v2_showPetById",
    ]);
    expect(tools.find((t) => t.name === "petstore_getPetById")?.description).toBe("Find pet by ID.\n\nReturns a single pet.");
  });

  it("a document that cannot be loaded fails only its source", async () => {
    const status = (await (await fetch(`${srv.url}/status`)).json()) as unknown;
    const list = (Array.isArray(status) ? status : (status as { sources: unknown[] }).sources) as {
      name: string;
      state: string;
      tools: number;
      error?: string;
    }[];
    const by = (n: string) => list.find((s) => s.name === n);
    expect(by("petstore")).toMatchObject({ state: "connected", tools: 5 });
    expect(by("broken")).toMatchObject({
      state: "failed",
      tools: 0,
      error: `openapi: cannot reach http://127.0.0.1:${dead}: connection refused (ECONNREFUSED)`,
    });
    expect(by("walled")).toMatchObject({
      state: "failed",
      error: `openapi: cannot reach ${denied.url}: egress to 127.0.0.2 refused: denied by egress.deny`,
    });
    expect(denied.seen).toEqual([]);
    expect((await fetch(`${srv.url}/readyz`)).status).toBe(200);
    expect(JSON.stringify(status)).not.toContain(canary);
  });

  it("executes a path-parameter operation with the configured headers", async () => {
    const r = await execute("petstore_getPetById", { petId: 1 });
    expect(r).toEqual({ status: 200, body: { output: '{"id":1,"name":"rex","photoUrls":[]}', isError: false, metadata: { status: 200 } } });
    const call = backend.seen.find((s) => s.url === "/api/v3/pet/1");
    expect(call?.headers.authorization).toBe(`Bearer ${canary}`);
    const missing = await execute("petstore_getPetById", { petId: 7 });
    expect(missing.body).toMatchObject({ isError: true, output: 'HTTP 404: {"code":404,"message":"Pet not found"}' });
  });

  it("validates arguments against the generated inputSchema", async () => {
    const r = await execute("petstore_addPet", { name: "no photos" });
    expect(r.status).toBe(422);
  });

  it("sends a merged JSON body, a query parameter, a header parameter and an array body", async () => {
    const add = await execute("petstore_addPet", { name: "doggie", photoUrls: ["u"], status: "available" });
    expect(JSON.parse(add.body.output)).toEqual({ name: "doggie", photoUrls: ["u"], status: "available", id: 99 });
    const sent = backend.seen.find((s) => s.method === "POST" && s.url === "/api/v3/pet");
    expect(sent?.headers["content-type"]).toBe("application/json");

    await execute("petstore_findPetsByStatus", { status: "sold" });
    expect(backend.seen.some((s) => s.url === "/api/v3/pet/findByStatus?status=sold")).toBe(true);

    const del = await execute("petstore_deletePet", { petId: 5, api_key: "k-123" });
    expect(del.body.output).toBe("Pet deleted");
    expect(backend.seen.find((s) => s.method === "DELETE")?.headers.api_key).toBe("k-123");

    const list = await execute("petstore_createUsersWithListInput", { body: [{ username: "ann" }, { username: "bob" }] });
    expect(JSON.parse(list.body.output)).toEqual({ username: "ann" });
  });

  it("3.1: $ref'd path parameters and a non-object requestBody", async () => {
    const r = await execute("ttt_put-square", { row: 2, column: 3, body: "X" });
    expect(JSON.parse(r.body.output)).toEqual({
      winner: ".",
      board: [
        [".", ".", "."],
        [".", ".", "X"],
        [".", ".", "."],
      ],
    });
    expect(backend.seen.find((s) => s.url === "/board/2/3")?.body).toBe('"X"');
    const bad = await execute("ttt_put-square", { row: 4, column: 1, body: "X" });
    expect(bad.status).toBe(422);
  });

  it("never logs the header secret", () => {
    expect(srv.logText()).not.toContain(canary);
  });
});
