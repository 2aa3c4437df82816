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
 * largest single cost of the MCP hop in a CPU profile (bench/README.md); the message is still
 * validated, once, where it is used.
 */
export class JsonLineBuffer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** `maxLineBytes`: a longer line is dropped (and reported) rather than held in memory. */
  constructor(private readonly maxLineBytes = 10 * 1024 * 1024) {}

  /** Appends a chunk and returns every complete line in it, parsed. */
  push(chunk: Buffer): LineResult[] {
    const out: LineResult[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
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
