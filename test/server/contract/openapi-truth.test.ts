import { describe, expect, it } from "vitest";
import { defineTool } from "../../../src/core/define-tool.js";
import { startServer } from "../../helpers/server.js";
import { testTools } from "../../helpers/tools.js";

type Op = { security?: unknown[]; requestBody?: { required: boolean; content: Record<string, { schema: { required?: string[] } }> } };
type Doc = { security?: unknown[]; components: { securitySchemes?: unknown }; paths: Record<string, Record<string, Op>> };

const KEY = "k-0123456789abcdef";

async function docOf(config: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Doc> {
  const s = await startServer({ config, tools: testTools() });
  try {
    const res = await fetch(`${s.url}/openapi.json`, { headers });
    expect(res.status).toBe(200);
    return (await res.json()) as Doc;
  } finally {
    await s.close();
  }
}

describe("/openapi.json is true of its deployment", () => {
  it("declares no security when no API key is configured", async () => {
    const doc = await docOf({});
    expect(doc.security).toBeUndefined();
    expect(doc.components.securitySchemes).toBeUndefined();
    const ops = Object.values(doc.paths).flatMap((item) => Object.values(item));
    expect(ops.filter((op) => op.security !== undefined)).toEqual([]);
  });

  it("requires a key where the server does, and none on the probes or a public /metrics", async () => {
    const doc = await docOf({ auth: { apiKeys: [{ id: "a", key: KEY }] }, metrics: { public: true } }, { authorization: `Bearer ${KEY}` });
    expect(doc.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(doc.paths["/healthz"]?.get?.security).toEqual([]);
    expect(doc.paths["/metrics"]?.get?.security).toEqual([]);
    expect(doc.paths["/status"]?.get?.security).toBeUndefined();
  });

  it("requires `arguments` only for a tool whose inputSchema requires something", async () => {
    const doc = await docOf({});
    const body = (name: string) => doc.paths[`/tools/${name}/execute`]?.post?.requestBody;
    expect(body("echo")).toMatchObject({ required: true, content: { "application/json": { schema: { required: ["arguments"] } } } });
    expect(body("divide")?.required).toBe(false);
    expect(body("divide")?.content["application/json"]?.schema.required).toBeUndefined();
  });

  it("requires a request body exactly where the server refuses a POST without one, operation by operation", async () => {
    // Tools that answer at once (a body-less call runs them; confirm, as an execution, would
    // wait for its answer), and one whose `{}` fails the schema although it lists no top-level `required`.
    const either = defineTool({
      name: "either",
      description: "needs a or b",
      inputSchema: {
        type: "object",
        properties: { a: { type: "string" }, b: { type: "string" } },
        anyOf: [{ required: ["a"] }, { required: ["b"] }],
      },
      run: () => "ok",
    });
    const tools = [...testTools().filter((t) => !["slow", "stubborn", "confirm"].includes(t.name)), either];
    const s = await startServer({ tools });
    try {
      const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as Doc;
      const checked: string[] = [];
      for (const [path, item] of Object.entries(doc.paths)) {
        const body = item.post?.requestBody;
        if (!body) continue;
        if (path === "/executions/{id}/input") {
          // Not a tool call: its body is always required, and a POST without one is a 400.
          const res = await fetch(`${s.url}/executions/${"0".repeat(32)}/input`, { method: "POST" });
          expect([body.required, res.status]).toEqual([true, 400]);
          continue;
        }
        if (!path.startsWith("/tools/")) {
          // Not a tool call: a required body is one whose absence the server refuses.
          const res = await fetch(`${s.url}${path.replaceAll(/\{[^}]+\}/g, "x")}`, { method: "POST" });
          expect(body.required, `${path} answered ${res.status} without a body`).toBe(res.status === 400 || res.status === 422);
          continue;
        }
        // The generic operations are tried with a tool that needs no arguments.
        const res = await fetch(`${s.url}${path.replace("{name}", "divide")}`, { method: "POST" });
        const refused = res.status === 422 && ((await res.json()) as { code: string }).code === "INVALID_ARGUMENTS";
        expect(body.required, `${path} answered ${res.status} without a body`).toBe(refused);
        if (body.required) expect(body.content["application/json"]?.schema.required, path).toEqual(["arguments"]);
        checked.push(path);
      }
      for (const t of tools) expect(checked).toEqual(expect.arrayContaining([`/tools/${t.name}/execute`, `/tools/${t.name}/executions`]));
      expect(checked).toEqual(expect.arrayContaining(["/tools/{name}/execute", "/tools/{name}/executions"]));
      expect(doc.paths["/tools/either/execute"]?.post?.requestBody?.required).toBe(true);
    } finally {
      await s.close();
    }
  });
});
