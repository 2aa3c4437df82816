import { describe, expect, it } from "vitest";
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
});
