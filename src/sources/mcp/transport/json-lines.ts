import type { JSONRPCMessage } from "@modelcontextprotocol/client";

/** What one line of a stdio MCP stream was: a message, or why it is not one. */
export type LineResult = { message: JSONRPCMessage } | { error: Error };

/**
 * Splits a stdio MCP stream into JSON-RPC messages, one per line.
 *
 * Unlike the SDK's ReadBuffer it does not zod-parse each message against JSONRPCMessageSchema:
 * the SDK's Protocol checks every message again on receipt (its isJSONRPC* guards, then the
 * result schema of the request it answers, or the handler's schema of a notification), and
 * reports a shape it does not know through `onerror`. Parsing the envelope here as well was the
 * largest single cost of the MCP hop in a CPU profile (bench/history/2026-12-notebook.md, "The MCP hop"); the message is still
 * validated, once, where it is used.
 */
export class JsonLineBuffer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The ends of a line being dropped (past the limit), kept until its newline: they may name the request it answers. */
  private skipping?: { head: string; tail: Buffer };

  /** `maxLineBytes`: a longer line is dropped (and reported) rather than held in memory. */
  constructor(private readonly maxLineBytes = 10 * 1024 * 1024) {}

  /**
   * Appends a chunk and returns every complete line in it, parsed. A line past the limit is
   * reported when it passes it and dropped; when it was the answer to a request (its id is
   * at its head or its tail, where SDKs put it), an error answer to that request stands in for
   * it, so the request fails now instead of at its timeout.
   */
  push(chunk: Buffer): LineResult[] {
    const out: LineResult[] = [];
    let start = 0;
    if (this.skipping) {
      const nl = chunk.indexOf(10);
      if (nl === -1) {
        this.skipping.tail = lastBytes(this.skipping.tail, chunk);
        return out;
      }
      const answer = droppedAnswer(this.skipping.head, lastBytes(this.skipping.tail, chunk.subarray(0, nl)), this.maxLineBytes);
      this.skipping = undefined;
      if (answer) out.push({ message: answer });
      start = nl + 1;
    }
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, nl);
      const line = this.pending.length > 0 ? Buffer.concat([...this.pending, part]) : part;
      this.pending = [];
      this.pendingBytes = 0;
      start = nl + 1;
      const parsed = parseLine(line.toString("utf8"));
      if (parsed) out.push(parsed);
    }
    if (start < chunk.length) {
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
      if (this.pendingBytes > this.maxLineBytes) {
        const head = Buffer.concat(this.pending.slice(0, 4)).subarray(0, ENDS).toString("utf8");
        this.skipping = { head, tail: lastBytes(Buffer.alloc(0), this.pending.at(-1) as Buffer) };
        this.clear();
        out.push({ error: new Error(`a line longer than ${this.maxLineBytes} bytes was dropped`) });
      }
    }
    return out;
  }

  clear(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }
}

// How much of each end of a dropped line is kept to find its id.
const ENDS = 256;
// A JSON-RPC id: a number or a string.
const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
// Python, Go: {"jsonrpc":"2.0","id":7,"result":…; the TypeScript SDK: {"result":…,"jsonrpc":"2.0","id":7}.
const HEAD_ID = new RegExp(String.raw`^\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*${ID}\s*,\s*"(?:result|error)"`);
const ANSWER_HEAD = /^\{\s*"(?:result|error)"\s*:/;
const TAIL_ID = new RegExp(String.raw`"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*${ID}\s*\}\s*$`);

/** The error answer standing in for a dropped line that answered a request, or undefined when it is no answer. */
function droppedAnswer(head: string, tail: Buffer, max: number): JSONRPCMessage | undefined {
  const raw = HEAD_ID.exec(head)?.[1] ?? (ANSWER_HEAD.test(head) ? TAIL_ID.exec(tail.toString("utf8"))?.[1] : undefined);
  if (raw === undefined) return undefined;
  const id = JSON.parse(raw) as string | number;
  return { jsonrpc: "2.0", id, error: { code: -32603, message: `The server's answer was longer than ${max} bytes and was dropped` } };
}

/** The last {@link ENDS} bytes of `kept` followed by `more`. */
function lastBytes(kept: Buffer, more: Buffer): Buffer {
  if (more.length >= ENDS) return Buffer.from(more.subarray(more.length - ENDS));
  return Buffer.concat([kept, more]).subarray(-ENDS);
}

function parseLine(text: string): LineResult | undefined {
  const line = text.endsWith("\r") ? text.slice(0, -1) : text;
  if (line.trim() === "") return undefined;
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value === "object" && value !== null && (value as { jsonrpc?: unknown }).jsonrpc === "2.0")
      return { message: value as JSONRPCMessage };
    return { error: new Error(`not a JSON-RPC 2.0 message: ${line.slice(0, 200)}`) };
  } catch (err) {
    return { error: err as Error };
  }
}
