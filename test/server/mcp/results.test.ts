import { describe, expect, it } from "vitest";
import { ToolnexusError } from "../../../src/core/errors.js";
import { InFlightMcpCalls } from "../../../src/server/mcp/in-flight.js";
import { invalidArgumentsResult, toCallToolResult, toJsonRpcError } from "../../../src/server/mcp/results.js";
import { callSignal } from "../../../src/server/calls/call-signal.js";

describe("ToolResult → CallToolResult", () => {
  it("keeps text and isError", () => {
    expect(toCallToolResult({ output: "hi", isError: false })).toEqual({ content: [{ type: "text", text: "hi" }] });
    expect(toCallToolResult({ output: "no", isError: true })).toEqual({ content: [{ type: "text", text: "no" }], isError: true });
  });

  it("gives back an MCP source's own content parts and structured content", () => {
    const parts = [
      { type: "text", text: "a picture" },
      { type: "image", data: "iVBOR", mimeType: "image/png" },
    ];
    expect(toCallToolResult({ output: "a picture", isError: false, metadata: { server: "s", tool: "t", content: parts } })).toEqual({
      content: parts,
    });
    const structured = toCallToolResult({
      output: '{"a":1}',
      isError: false,
      metadata: { server: "s", tool: "t", structuredContent: { a: 1 } },
    });
    expect(structured).toEqual({ content: [{ type: "text", text: '{"a":1}' }], structuredContent: { a: 1 } });
  });

  it("carries a suspension in _meta", () => {
    const pending = { id: "p1", kind: "question", prompt: "Sure?" };
    expect(toCallToolResult({ output: "Sure?", isError: true, metadata: { pending } })._meta).toEqual({ "toolnexus/pending": pending });
  });

  it("names the JSON pointers of invalid arguments, scrubbed", () => {
    const err = new ToolnexusError("INVALID_ARGUMENTS", "Arguments do not match", {
      errors: [
        { pointer: "/text", message: "must be string s3cret" },
        { pointer: "", message: "must have required property 'n'" },
      ],
    });
    const text = (invalidArgumentsResult(err, (s) => s.replaceAll("s3cret", "***")).content[0] as { text: string }).text;
    expect(text).toBe("Arguments do not match\n/text: must be string ***\n/: must have required property 'n'");
  });

  it("maps failures to JSON-RPC codes with the stable code in data", () => {
    const scrub = (s: string) => s;
    expect(toJsonRpcError(new ToolnexusError("TOOL_NOT_FOUND", "No tool"), "r1", scrub)).toMatchObject({
      code: -32602,
      message: "No tool",
      data: { code: "TOOL_NOT_FOUND", status: 404, requestId: "r1" },
    });
    expect(toJsonRpcError(new ToolnexusError("OVERLOADED", "busy", { headers: { "retry-after": "1" } }), "r2", scrub)).toMatchObject({
      code: -32000,
      data: { code: "OVERLOADED", retryAfter: 1 },
    });
    expect(toJsonRpcError(new ToolnexusError("TOOL_TIMEOUT", "slow"), "r3", scrub).code).toBe(-32001);
  });
});

describe("in-flight MCP calls", () => {
  it("cancels only the same caller's call with that id, and forgets a call once disposed", () => {
    const calls = new InFlightMcpCalls();
    const mine = callSignal(10_000);
    const theirs = callSignal(10_000);
    calls.add("alice", 7, mine);
    calls.add("bob", 7, theirs);
    expect(calls.cancel("alice", "7")).toBe(false); // a string id is another request
    expect(calls.cancel("alice", 7, "stop")).toBe(true);
    expect(mine.signal.reason).toMatchObject({ code: "CANCELLED", message: "The client cancelled the call: stop" });
    expect(theirs.signal.aborted).toBe(false);
    mine.dispose();
    theirs.dispose();
    expect(calls.size).toBe(0);
    expect(calls.cancel("bob", 7)).toBe(false);
  });
});
