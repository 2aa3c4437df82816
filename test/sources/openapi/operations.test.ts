import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { EgressGuard } from "../../../src/net/egress-guard.js";
import { loadSpec, resolveBaseUrl } from "../../../src/sources/openapi/load-spec.js";
import { buildOperationRequest } from "../../../src/sources/openapi/operation-request.js";
import { extractOperations, fallbackId, type OperationSpec } from "../../../src/sources/openapi/operations.js";

// int64 request fields are bounded to what a JSON number carries exactly.
const SAFE_MIN = Number.MIN_SAFE_INTEGER;
const SAFE_MAX = Number.MAX_SAFE_INTEGER;

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/openapi");

async function load(file: string) {
  const dispatcher = new EgressGuard().dispatcher();
  try {
    const spec = path.join(FIXTURES, file);
    const doc = await loadSpec(spec, { dispatcher, timeout: 5000, maxBytes: 1 << 20 });
    return { doc, spec, ...extractOperations(doc) };
  } finally {
    await dispatcher.close();
  }
}
const byId = (ops: OperationSpec[], id: string) => {
  const op = ops.find((o) => o.id === id);
  if (!op) throw new Error(`no operation ${id}`);
  return op;
};

describe("Swagger Petstore (OpenAPI 3.0)", async () => {
  const { operations, warnings, doc, spec } = await load("petstore3.json");

  it("has one operation per method and path", () => {
    expect(warnings).toEqual([]);
    expect(operations.map((o) => o.id)).toEqual([
      "updatePet",
      "addPet",
      "findPetsByStatus",
      "findPetsByTags",
      "getPetById",
      "updatePetWithForm",
      "deletePet",
      "uploadFile",
      "getInventory",
      "placeOrder",
      "getOrderById",
      "deleteOrder",
      "createUser",
      "createUsersWithListInput",
      "loginUser",
      "logoutUser",
      "getUserByName",
      "updateUser",
      "deleteUser",
    ]);
  });

  it("merges an object JSON body into the arguments, keeping its required list", () => {
    const op = byId(operations, "addPet");
    expect(op.description).toBe("Add a new pet to the store.");
    expect(op.body).toEqual({ mediaType: "application/json", mode: "json", merged: true, arg: "body", required: true });
    expect(op.inputSchema).toEqual({
      type: "object",
      properties: {
        id: { type: "integer", format: "int64", minimum: SAFE_MIN, maximum: SAFE_MAX, examples: [10] },
        name: { type: "string", examples: ["doggie"] },
        category: {
          type: "object",
          properties: {
            id: { type: "integer", format: "int64", minimum: SAFE_MIN, maximum: SAFE_MAX, examples: [1] },
            name: { type: "string", examples: ["Dogs"] },
          },
        },
        photoUrls: { type: "array", items: { type: "string" } },
        tags: {
          type: "array",
          items: {
            type: "object",
            properties: { id: { type: "integer", format: "int64", minimum: SAFE_MIN, maximum: SAFE_MAX }, name: { type: "string" } },
          },
        },
        status: { type: "string", description: "pet status in the store", enum: ["available", "pending", "sold"] },
      },
      required: ["name", "photoUrls"],
    });
  });

  it("path, query and header parameters, with descriptions and required", () => {
    expect(byId(operations, "getPetById").inputSchema).toEqual({
      type: "object",
      properties: { petId: { type: "integer", format: "int64", minimum: SAFE_MIN, maximum: SAFE_MAX, description: "ID of pet to return" } },
      required: ["petId"],
    });
    expect(byId(operations, "findPetsByStatus").inputSchema).toEqual({
      type: "object",
      properties: {
        status: {
          type: "string",
          default: "available",
          enum: ["available", "pending", "sold"],
          description: "Status values that need to be considered for filter",
        },
      },
      required: ["status"],
    });
    const del = byId(operations, "deletePet");
    expect(del.params.map((p) => `${p.in}:${p.name}`)).toEqual(["header:api_key", "path:petId"]);
    expect(del.inputSchema.required).toEqual(["petId"]);
  });

  it("a header argument HTTP cannot carry is a model-facing error, not a request", () => {
    const del = byId(operations, "deletePet");
    const ok = buildOperationRequest(del, "http://127.0.0.1:9/api/v3", {}, { petId: 1, api_key: "k-1" });
    expect(typeof ok === "object" && ok.headers.api_key).toBe("k-1");
    expect(buildOperationRequest(del, "http://127.0.0.1:9/api/v3", {}, { petId: 1, api_key: "a\nb" })).toMatch(
      /cannot be sent as the api_key header/,
    );
    expect(buildOperationRequest(del, "http://127.0.0.1:9/api/v3", {}, { petId: 1, api_key: "\u{1F600}" })).toMatch(/non-Latin-1/);
  });

  it("a non-object body becomes one `body` argument", () => {
    const list = byId(operations, "createUsersWithListInput");
    expect(list.body).toMatchObject({ merged: false, arg: "body", required: false });
    expect((list.inputSchema.properties as Record<string, { type: string }>).body?.type).toBe("array");
    const upload = byId(operations, "uploadFile");
    expect(upload.body).toMatchObject({ mediaType: "application/octet-stream", mode: "raw", merged: false });
    expect(upload.inputSchema).toEqual({
      type: "object",
      properties: {
        petId: { type: "integer", format: "int64", minimum: SAFE_MIN, maximum: SAFE_MAX, description: "ID of pet to update" },
        additionalMetadata: { type: "string", description: "Additional Metadata" },
        body: { type: "string" },
      },
      required: ["petId"],
    });
  });

  it("an optional object body keeps its properties but not its required list", () => {
    const op = byId(operations, "createUser");
    expect(op.body).toMatchObject({ merged: true, required: false });
    expect(Object.keys(op.inputSchema.properties as object)).toEqual([
      "id",
      "username",
      "firstName",
      "lastName",
      "email",
      "password",
      "phone",
      "userStatus",
    ]);
    expect(op.inputSchema.required).toBeUndefined();
  });

  it("a body property clashing with a parameter keeps the body whole under `body`", () => {
    // updateUser: path parameter `username` and User.username.
    const op = byId(operations, "updateUser");
    expect(op.body).toMatchObject({ merged: false, arg: "body" });
    expect(Object.keys(op.inputSchema.properties as object)).toEqual(["username", "body"]);
    expect((op.inputSchema.properties as Record<string, Record<string, unknown>>).body?.description).toBe(
      "Update an existent user in the store",
    );
    expect(op.inputSchema.required).toEqual(["username"]);
  });

  it("resolves the relative server against the spec URL, and refuses to guess for a file", () => {
    expect(resolveBaseUrl(doc, "http://127.0.0.1:8080/api/v3/openapi.json")).toBe("http://127.0.0.1:8080/api/v3");
    expect(() => resolveBaseUrl(doc, spec)).toThrow('the document\'s server URL "/api/v3" is relative and the spec is a file: set baseUrl');
    expect(resolveBaseUrl(doc, spec, "http://petstore:8080/api/v3")).toBe("http://petstore:8080/api/v3");
  });
});

describe("Tic Tac Toe (OpenAPI 3.1)", async () => {
  const { operations } = await load("tictactoe-3.1.yaml");

  it("dereferences shared path parameters and the $ref'd requestBody", () => {
    expect(operations.map((o) => `${o.method} ${o.id}`)).toEqual(["GET get-board", "GET get-square", "PUT put-square"]);
    const coordinate = (d: string) => ({ type: "integer", minimum: 1, maximum: 3, examples: [1], description: d });
    expect(byId(operations, "put-square").inputSchema).toEqual({
      type: "object",
      properties: {
        row: coordinate("Board row (vertical coordinate)"),
        column: coordinate("Board column (horizontal coordinate)"),
        body: {
          type: "string",
          enum: [".", "X", "O"],
          description: "Possible values for a board square. `.` means empty square.",
          examples: ["."],
        },
      },
      required: ["row", "column", "body"],
    });
    expect(byId(operations, "get-board").description).toBe(
      "Get the whole board\n\nRetrieves the current state of the board and the winner.",
    );
  });

  it("has no servers: the base is the spec URL's origin, a file needs baseUrl", async () => {
    const { doc } = await load("tictactoe-3.1.yaml");
    expect(resolveBaseUrl(doc, "http://127.0.0.1:1/specs/ttt.yaml")).toBe("http://127.0.0.1:1/");
    expect(() => resolveBaseUrl(doc, "/x/ttt.yaml")).toThrow("set baseUrl");
  });
});

describe("Swagger 2.0 petstore", async () => {
  const { operations, doc, spec } = await load("petstore-2.0.json");

  it("reads 2.0 parameters and host/basePath", () => {
    expect(operations.map((o) => o.id)).toEqual(["listPets", "createPets", "showPetById"]);
    expect(byId(operations, "listPets").inputSchema).toEqual({
      type: "object",
      properties: { limit: { type: "integer", format: "int32", description: "How many items to return at one time (max 100)" } },
    });
    expect(byId(operations, "showPetById").inputSchema.required).toEqual(["petId"]);
    expect(resolveBaseUrl(doc, spec)).toBe("http://petstore.swagger.io/v1");
  });

  it("2.0 body and formData parameters", () => {
    const { operations: ops } = extractOperations({
      swagger: "2.0",
      paths: {
        "/things/{id}": {
          put: {
            parameters: [
              { name: "id", in: "path", required: true, type: "string" },
              {
                name: "thing",
                in: "body",
                required: true,
                schema: { type: "object", required: ["n"], properties: { n: { type: "integer" } } },
              },
            ],
          },
          post: {
            consumes: ["application/x-www-form-urlencoded"],
            parameters: [{ name: "note", in: "formData", type: "string", required: true }],
          },
        },
      },
    });
    expect(ops[0]).toMatchObject({
      id: "put_things_id",
      body: { merged: true, mode: "json", required: true },
      inputSchema: { required: ["id", "n"] },
    });
    expect(ops[1]).toMatchObject({
      id: "post_things_id",
      body: { mode: "form", merged: true },
      inputSchema: { properties: { note: { type: "string" } }, required: ["note"] },
    });
  });
});

describe("recursion, external refs, 3.1 types", async () => {
  const { operations, warnings, doc, spec } = await load("circular-3.1.yaml");

  it("cuts cycles, drops readOnly request properties, names operations without an id", () => {
    expect(warnings).toEqual([]);
    const create = byId(operations, "post_teams");
    const props = create.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(props)).toEqual(["name", "lead", "subteams"]);
    expect(props.subteams).toEqual({ type: "array", items: {} });
    expect(props.lead).toEqual({
      type: "object",
      properties: { name: { type: "string" }, email: { type: ["string", "null"], format: "email" } },
    });
    expect(create.inputSchema.required).toEqual(["name"]);
    // Acyclic: it serializes.
    expect(() => JSON.stringify(create.inputSchema)).not.toThrow();
  });

  it("keeps 3.1 type arrays and header parameters; fills server variables", () => {
    expect(byId(operations, "listMembers").inputSchema).toEqual({
      type: "object",
      properties: {
        teamId: { type: "string" },
        role: { type: ["string", "null"], enum: ["lead", "member", null] },
        "X-Trace": { type: "string" },
      },
      required: ["teamId"],
    });
    expect(resolveBaseUrl(doc, spec)).toBe("http://127.0.0.1:9/v1");
  });

  it("an operation with an optional multipart body keeps its parameters only", () => {
    expect(byId(operations, "upload members").body).toBeUndefined();
    expect(fallbackId("GET", "/a/{b}/c.json")).toBe("GET_a_b_c_json");
  });
});
