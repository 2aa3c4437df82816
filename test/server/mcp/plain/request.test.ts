import { describe, expect, it } from "vitest";
import { plainRequestOf } from "../../../../src/server/mcp/plain/request.js";

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
};
const call = (params: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { name: "echo", arguments: { text: "hi" }, ...params },
  ...extra,
});
const h25 = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
const h26 = { "content-type": "application/json", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo" };
const call26 = (meta: Record<string, unknown> = ENVELOPE, params: Record<string, unknown> = {}) => call({ _meta: meta, ...params });

describe("plainRequestOf: which /mcp requests skip the per-request SDK Server", () => {
  it("takes a plain tools/call and tools/list of either era", () => {
    expect(plainRequestOf(call(), h25)).toEqual({ id: 7, method: "tools/call", name: "echo", arguments: { text: "hi" } });
    expect(plainRequestOf(call(), { ...h25, "mcp-protocol-version": undefined })).toMatchObject({ name: "echo" });
    expect(plainRequestOf({ jsonrpc: "2.0", id: "a", method: "tools/list", params: { cursor: "b2" } }, h25)).toEqual({
      id: "a",
      method: "tools/list",
      cursor: "b2",
    });
    expect(plainRequestOf(call26(), h26)).toEqual({
      id: 7,
      method: "tools/call",
      name: "echo",
      arguments: { text: "hi" },
      envelope: ENVELOPE,
    });
    const list26 = { jsonrpc: "2.0", id: 8, method: "tools/list", params: { _meta: ENVELOPE } };
    expect(plainRequestOf(list26, { ...h26, "mcp-method": "tools/list", "mcp-name": undefined })).toMatchObject({ method: "tools/list" });
    // Trace context rides along.
    expect(plainRequestOf(call({ _meta: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" } }), h25)).toBeDefined();
  });

  it("leaves to the SDK what streams, retries, runs as a task or is not another method", () => {
    expect(plainRequestOf(call({ _meta: { progressToken: 1 } }), h25)).toBeUndefined();
    expect(plainRequestOf(call26({ ...ENVELOPE, "io.modelcontextprotocol/logLevel": "info" }), h26)).toBeUndefined();
    expect(plainRequestOf(call26(ENVELOPE, { requestState: "s" }), h26)).toBeUndefined();
    expect(plainRequestOf(call26(ENVELOPE, { inputResponses: {} }), h26)).toBeUndefined();
    expect(plainRequestOf(call({ task: { ttl: 1000 } }), h25)).toBeUndefined();
    expect(plainRequestOf({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }, h25)).toBeUndefined();
    expect(plainRequestOf({ jsonrpc: "2.0", id: 1, method: "prompts/list" }, h25)).toBeUndefined();
    expect(plainRequestOf({ jsonrpc: "2.0", method: "tools/list" }, h25)).toBeUndefined(); // a notification
  });

  it("leaves to the SDK every request the SDK would refuse, so the refusal is the SDK's", () => {
    // JSON-RPC and params shapes (checked with the SDK's schemas).
    expect(plainRequestOf(call({}, { id: 1.5 }), h25)).toBeUndefined();
    expect(plainRequestOf(call({}, { result: {} }), h25)).toBeUndefined();
    expect(plainRequestOf(call({ name: 42 }), h25)).toBeUndefined();
    expect(plainRequestOf(call({ arguments: "text" }), h25)).toBeUndefined();
    // What the 2025 transport checks.
    expect(plainRequestOf(call(), { ...h25, accept: "application/json" })).toBeUndefined();
    expect(plainRequestOf(call(), { ...h25, "content-type": "text/plain" })).toBeUndefined();
    expect(plainRequestOf(call(), { ...h25, "mcp-protocol-version": "2023-01-01" })).toBeUndefined();
    expect(plainRequestOf(call(), { ...h25, "mcp-protocol-version": "2026-07-28" })).toBeUndefined();
    // The 2026 standard headers, and the envelope.
    expect(plainRequestOf(call26(), { ...h26, "mcp-name": undefined })).toBeUndefined();
    expect(plainRequestOf(call26(), { ...h26, "mcp-name": "other" })).toBeUndefined();
    expect(plainRequestOf(call26(), { ...h26, "mcp-name": "=?base64?ZWNobw==?=" })).toBeUndefined();
    expect(plainRequestOf(call26(), { ...h26, "mcp-method": "tools/list" })).toBeUndefined();
    expect(plainRequestOf(call26(), { ...h26, "mcp-method": undefined })).toBeUndefined();
    expect(plainRequestOf(call26(), { ...h26, "mcp-protocol-version": undefined })).toBeUndefined();
    expect(plainRequestOf(call26({ ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2027-01-01" }), h26)).toBeUndefined();
    const { "io.modelcontextprotocol/clientCapabilities": _, ...noCaps } = ENVELOPE;
    expect(plainRequestOf(call26(noCaps), h26)).toBeUndefined();
    // The same envelope with a malformed clientInfo: refused every time (the verdict is remembered per envelope).
    const badInfo = { ...ENVELOPE, "io.modelcontextprotocol/clientInfo": null };
    expect(plainRequestOf(call26(badInfo), h26)).toBeUndefined();
    expect(plainRequestOf(call26(badInfo), h26)).toBeUndefined();
    const noInfo = { ...ENVELOPE, "io.modelcontextprotocol/clientInfo": undefined };
    delete noInfo["io.modelcontextprotocol/clientInfo"];
    expect(plainRequestOf(call26(noInfo), h26)).toBeDefined();
    // A key JSON-RPC's request does not have (the SDK's schema is strict).
    expect(plainRequestOf(call({}, { extra: 1 }), h25)).toBeUndefined();
    expect(plainRequestOf(call26(ENVELOPE, {}), h26)).toBeDefined();
    expect(plainRequestOf({ ...call26(), extra: 1 }, h26)).toBeUndefined();
  });

  it("takes a 2026 tasks/get, tasks/cancel or tasks/update whose string taskId Mcp-Name mirrors; 2025 ones are the SDK's", () => {
    const taskId = "0123456789abcdef0123456789abcdef";
    const task = (method: string, params: Record<string, unknown> = { taskId }) => ({
      jsonrpc: "2.0",
      id: 9,
      method,
      params: { ...params, _meta: ENVELOPE },
    });
    const h = (method: string, name: string | null = taskId) => ({ ...h26, "mcp-method": method, "mcp-name": name ?? undefined });
    expect(plainRequestOf(task("tasks/get"), h("tasks/get"))).toEqual({ id: 9, method: "tasks/get", taskId, envelope: ENVELOPE });
    expect(plainRequestOf(task("tasks/cancel"), h("tasks/cancel"))).toMatchObject({ method: "tasks/cancel", taskId });
    const answers = { input: { action: "accept" } };
    expect(plainRequestOf(task("tasks/update", { taskId, inputResponses: answers }), h("tasks/update"))).toMatchObject({
      method: "tasks/update",
      taskId,
      inputResponses: answers,
    });
    expect(plainRequestOf(task("tasks/update"), h("tasks/update"))).not.toHaveProperty("inputResponses");
    expect(plainRequestOf(task("tasks/update", { taskId, requestState: "s" }), h("tasks/update"))).toBeUndefined();
    expect(plainRequestOf(task("tasks/get", { taskId, inputResponses: {} }), h("tasks/get"))).toBeUndefined();
    expect(plainRequestOf(task("tasks/result"), h("tasks/result"))).toBeUndefined();
    expect(plainRequestOf(task("tasks/get"), h("tasks/get", null))).toBeUndefined();
    expect(plainRequestOf(task("tasks/get"), h("tasks/get", "other"))).toBeUndefined();
    expect(plainRequestOf(task("tasks/get", { taskId: 5 }), h("tasks/get", "5"))).toBeUndefined();
    expect(plainRequestOf(task("tasks/get", {}), h("tasks/get", null))).toBeUndefined();
    expect(
      plainRequestOf({ jsonrpc: "2.0", id: 9, method: "tasks/get", params: { taskId } }, { ...h25, "mcp-name": taskId }),
    ).toBeUndefined();
  });
});
