import { describe, expect, it } from "vitest";
import { JsonLineBuffer } from "../../../src/sources/mcp/transport/json-lines.js";

const msg = (id: number) => ({ jsonrpc: "2.0", id, result: { content: [] } });

describe("JsonLineBuffer", () => {
  it("returns each complete line as a message, across chunk boundaries and CRLF", () => {
    const buf = new JsonLineBuffer();
    const text = `${JSON.stringify(msg(1))}\n${JSON.stringify(msg(2))}\r\n${JSON.stringify(msg(3))}\n`;
    const a = Buffer.from(text);
    const cut1 = 10;
    const cut2 = text.indexOf("\n") + 5;
    const out = [...buf.push(a.subarray(0, cut1)), ...buf.push(a.subarray(cut1, cut2)), ...buf.push(a.subarray(cut2))];
    expect(out).toEqual([{ message: msg(1) }, { message: msg(2) }, { message: msg(3) }]);
  });

  it("keeps a multi-byte character split between chunks intact", () => {
    const buf = new JsonLineBuffer();
    const line = Buffer.from(`${JSON.stringify({ jsonrpc: "2.0", method: "n", params: { t: "héllo ✓" } })}\n`);
    const at = line.indexOf(0xe2) + 1; // inside the ✓
    expect([...buf.push(line.subarray(0, at)), ...buf.push(line.subarray(at))]).toEqual([
      { message: { jsonrpc: "2.0", method: "n", params: { t: "héllo ✓" } } },
    ]);
  });

  it("reports a line that is not JSON or not JSON-RPC 2.0, skips blank lines, and goes on", () => {
    const buf = new JsonLineBuffer();
    const out = buf.push(Buffer.from(`this is not JSON\n\n{"id":1}\n${JSON.stringify(msg(4))}\n`));
    expect(out).toHaveLength(3);
    expect("error" in out[0]! && out[0].error).toBeInstanceOf(SyntaxError);
    expect("error" in out[1]! && out[1].error.message).toMatch(/not a JSON-RPC 2.0 message/);
    expect(out[2]).toEqual({ message: msg(4) });
  });

  it("drops a line longer than its limit instead of holding it", () => {
    const buf = new JsonLineBuffer(64);
    const first = buf.push(Buffer.alloc(100, "x"));
    expect(first).toHaveLength(1);
    expect("error" in first[0]! && first[0].error.message).toMatch(/longer than 64 bytes/);
    const rest = buf.push(Buffer.from(`xxx\n${JSON.stringify(msg(5))}\n`));
    expect(rest.at(-1)).toEqual({ message: msg(5) });
  });

  it("answers the request a dropped line answered with an error, its id at the head or the tail", () => {
    const buf = new JsonLineBuffer(64);
    const big = "y".repeat(200);
    // The TypeScript SDK's order: result first, the id last; sent in pieces.
    const ts = `{"result":{"contents":[{"uri":"a","text":"${big}","id":9}]},"jsonrpc":"2.0","id":7}\n`;
    const out = [...buf.push(Buffer.from(ts.slice(0, 100))), ...buf.push(Buffer.from(ts.slice(100)))];
    expect(out.at(-1)).toEqual({
      message: { jsonrpc: "2.0", id: 7, error: { code: -32603, message: expect.stringMatching(/longer than 64 bytes/) } },
    });
    // Python's and Go's order: the id first.
    const line = `{"jsonrpc":"2.0","id":"r-1","result":{"text":"${big}"}}\n`;
    const py = [...buf.push(Buffer.from(line.slice(0, 150))), ...buf.push(Buffer.from(line.slice(150)))];
    expect(py.at(-1)).toEqual({ message: expect.objectContaining({ id: "r-1", error: expect.objectContaining({ code: -32603 }) }) });
    // A request or a notification of the server is no answer: only reported.
    const request = `{"method":"x","params":{"t":"${big}"},"jsonrpc":"2.0","id":3}\n${JSON.stringify(msg(8))}\n`;
    const req = [...buf.push(Buffer.from(request.slice(0, 150))), ...buf.push(Buffer.from(request.slice(150)))];
    expect(req.filter((r) => "message" in r)).toEqual([{ message: msg(8) }]);
  });
});
