import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { genericOpenApi } from "../../../src/server/generic-openapi.js";
import { withToolOperations } from "../../../src/server/openapi/tool-openapi.js";

describe("openapi/openapi.json", () => {
  it("is exactly what the route schemas generate (run `npm run openapi` after changing a route)", async () => {
    const committed = await readFile(new URL("../../../openapi/openapi.json", import.meta.url), "utf8");
    expect(committed).toBe(await genericOpenApi());
  });

  it("documents every generic route with components for the shared shapes", async () => {
    const doc = JSON.parse(await genericOpenApi()) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toBe("3.1.0");
    const ops = Object.entries(doc.paths).flatMap(([p, m]) =>
      Object.entries(m).map(([verb, op]) => `${verb.toUpperCase()} ${p} ${op.operationId}`),
    );
    expect(ops.sort()).toEqual(
      [
        "GET /healthz health",
        "GET /metrics metrics",
        "GET /readyz ready",
        "GET /skills listSkills",
        "GET /skills/prompt skillsPrompt",
        "GET /status status",
        "GET /tools listTools",
        "GET /tools/{name} getTool",
        "POST /executions/{id}/input answerExecutionInput",
        "POST /tools/{name}/execute executeTool",
        "GET /executions listExecutions",
        "GET /executions/{id} getExecution",
        "GET /executions/{id}/events streamExecutionEvents",
        "POST /executions/{id}/cancel cancelExecution",
        "POST /tools/{name}/executions submitExecution",
        "GET /admin/pins listPins",
        "POST /admin/pins/{tool}/approve approvePin",
        "POST /admin/session consoleSignIn",
        "POST /admin/session/end consoleSignOut",
        "GET /admin/metrics consoleToolMetrics",
        "GET /admin/executions listAllExecutions",
        "POST /admin/executions/{id}/cancel cancelAnyExecution",
        "GET /admin/audit consoleAuditTail",
        "GET /admin/audit/events consoleAuditEvents",
        "GET /resources listResources",
        "GET /resources/templates listResourceTemplates",
        "GET /resources/read readResource",
        "GET /prompts listPrompts",
        "POST /prompts/{name}/get getPrompt",
        "POST /complete complete",
        "GET /resources/events streamResourceEvents",
        "GET /me/credentials listCredentials",
        "PUT /me/credentials/{source} setCredential",
        "DELETE /me/credentials/{source} deleteCredential",
        "GET /oauth/client-metadata.json oauthClientMetadata",
      ].sort(),
    );
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining([
        "Problem",
        "ToolResult",
        "ExecuteBody",
        "ToolInfo",
        "Answer",
        "Execution",
        "ExecutionList",
        "ExecutionStatus",
        "Progress",
        "ResourceList",
        "ResourceReadResult",
        "PromptGetResult",
        "CompleteBody",
      ]),
    );
  });
});

describe("per-tool operations", () => {
  const base = { openapi: "3.1.0", paths: { "/tools/{name}/execute": { post: { responses: { 200: { description: "ok" } } } } } };

  it("adds POST /tools/<name>/execute with operationId = name and the inputSchema as arguments", () => {
    const doc = withToolOperations(base, [
      {
        name: "echo",
        description: "Echo it.\nMore.",
        source: "native",
        inputSchema: { type: "object", properties: { text: { type: "string" } } },
      },
    ]);
    const op = (doc.paths?.["/tools/echo/execute"] as { post: Record<string, unknown> }).post;
    expect(op).toMatchObject({ operationId: "echo", summary: "Echo it.", responses: { 200: { description: "ok" } } });
    expect(JSON.stringify(op.requestBody)).toContain('"arguments":{"$ref":"#/components/schemas/echo_arguments"}');
    expect(doc.components?.schemas?.echo_arguments).toEqual({ type: "object", properties: { text: { type: "string" } } });
    expect(base.paths).not.toHaveProperty("/tools/echo/execute");
  });

  it("keeps the 202 of a promoted call only on MCP tools' operations (only their upstream can ask mid-call)", () => {
    const withPromotion = {
      openapi: "3.1.0",
      paths: { "/tools/{name}/execute": { post: { responses: { 200: { description: "ok" }, 202: { description: "promoted" } } } } },
    };
    const schema = { type: "object", properties: {} };
    const doc = withToolOperations(withPromotion, [
      { name: "echo", description: "", source: "native", inputSchema: schema },
      { name: "fs_read", description: "", source: "mcp", inputSchema: schema },
    ]);
    const responses = (name: string) =>
      Object.keys((doc.paths?.[`/tools/${name}/execute`] as { post: { responses: object } }).post.responses);
    expect(responses("echo")).toEqual(["200"]);
    expect(responses("fs_read")).toEqual(["200", "202"]);
  });

  it("gives each operation an example body that passes the tool's schema, without timeoutMs", () => {
    const inputSchema = {
      type: "object",
      required: ["city", "days", "unit"],
      additionalProperties: false,
      properties: {
        city: { type: "string", examples: ["Lisbon"] },
        days: { type: "integer", minimum: 1 },
        unit: { enum: ["C", "F"] },
        note: { type: "string" },
      },
    };
    const doc = withToolOperations(base, [{ name: "weather", description: "", source: "native", inputSchema }]);
    const media = (doc.paths?.["/tools/weather/execute"] as { post: { requestBody: { content: Record<string, { example: unknown }> } } })
      .post.requestBody.content["application/json"];
    expect(media?.example).toEqual({ arguments: { city: "Lisbon", days: 1, unit: "C" } });
  });

  it("writes a nullable enum as an enum or null, which client generators read as an optional enum", () => {
    const inputSchema = {
      type: "object",
      properties: { unit: { type: ["string", "null"], enum: ["C", "F", null], description: "Unit." } },
    };
    const doc = withToolOperations(base, [{ name: "temp", description: "", source: "native", inputSchema }]);
    expect(doc.components?.schemas?.temp_arguments).toEqual({
      type: "object",
      properties: { unit: { description: "Unit.", anyOf: [{ type: "string", enum: ["C", "F"] }, { type: "null" }] } },
    });
  });

  it("adds the asynchronous POST /tools/<name>/executions with the same typed body (operationId <name>.submit)", () => {
    const withSubmit = {
      ...base,
      paths: {
        ...base.paths,
        "/tools/{name}/executions": {
          post: {
            parameters: [
              { in: "path", name: "name" },
              { in: "header", name: "idempotency-key" },
            ],
            responses: { 202: { description: "accepted" } },
          },
        },
      },
    };
    const doc = withToolOperations(withSubmit, [
      { name: "echo", description: "Echo it.", source: "native", inputSchema: { type: "object" } },
    ]);
    const op = (doc.paths?.["/tools/echo/executions"] as { post: Record<string, unknown> }).post;
    expect(op).toMatchObject({
      operationId: "echo.submit",
      parameters: [{ in: "header", name: "idempotency-key" }],
      responses: { 202: { description: "accepted" } },
    });
    expect(JSON.stringify(op.requestBody)).toContain('"arguments":{"$ref":"#/components/schemas/echo_arguments"}');
  });

  it("rewrites local $defs, definitions and root refs into components", () => {
    const inputSchema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { a: { $ref: "#/$defs/Addr" }, b: { $ref: "#/definitions/Legacy" }, self: { $ref: "#" } },
      $defs: { Addr: { type: "object", properties: { next: { $ref: "#/$defs/Addr" } } } },
      definitions: { Legacy: { type: "string" } },
    };
    const doc = withToolOperations(base, [{ name: "geo", description: "", source: "mcp", inputSchema }]);
    expect(doc.components?.schemas).toEqual({
      geo__Addr: { type: "object", properties: { next: { $ref: "#/components/schemas/geo__Addr" } } },
      geo__Legacy: { type: "string" },
      geo_arguments: {
        type: "object",
        properties: {
          a: { $ref: "#/components/schemas/geo__Addr" },
          b: { $ref: "#/components/schemas/geo__Legacy" },
          self: { $ref: "#/components/schemas/geo_arguments" },
        },
      },
    });
  });
});
