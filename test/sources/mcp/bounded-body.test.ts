import { describe, expect, it } from "vitest";
import { boundedFetch, MessageTooLargeError } from "../../../src/sources/mcp/transport/bounded-body.js";

/** A fetch answering `chunks` as the body, with `type` as its content type. */
const serving = (type: string, chunks: string[]) => async (): Promise<Response> =>
  new Response(
    new ReadableStream({
      start(c) {
        for (const x of chunks) c.enqueue(new TextEncoder().encode(x));
        c.close();
      },
    }),
    { headers: { "content-type": type } },
  );

const read = async (type: string, chunks: string[], limit: number) => (await boundedFetch(serving(type, chunks), limit)("http://x")).text();

describe("boundedFetch", () => {
  it("passes a JSON body within the limit and errors one past it", async () => {
    expect(await read("application/json", ['{"a":', "1}"], 10)).toBe('{"a":1}');
    await expect(read("application/json", ['{"a":"', "x".repeat(20), '"}'], 10)).rejects.toBeInstanceOf(MessageTooLargeError);
  });

  it("bounds each SSE event, not the stream, blank lines split across chunks included", async () => {
    const event = (n: number) => `data: ${"x".repeat(n)}\n\n`;
    const many = [event(10), event(10), event(10), "data: y\n", "\n", "data: z\r\n", "\r\n"];
    expect(await read("text/event-stream", many, 20)).toBe(many.join(""));
    await expect(read("text/event-stream", [event(10), "data: ", "x".repeat(30), "\n\n"], 20)).rejects.toBeInstanceOf(MessageTooLargeError);
  });
});
