import { Writable } from "node:stream";
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { LineWriter } from "../../../src/sources/mcp/transport/line-writer.js";

/** A stream that records each write it gets; `highWaterMark` 1 makes every write ask for a drain. */
function sink(highWaterMark = 1024 * 1024): { out: Writable; writes: string[] } {
  const writes: string[] = [];
  const out = new Writable({
    highWaterMark,
    write(chunk: Buffer, _enc, cb) {
      writes.push(chunk.toString());
      setImmediate(cb);
    },
  });
  return { out, writes };
}

const msg = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo" } });

describe("LineWriter", () => {
  it("writes the messages of one turn in one write, a line each, in order", async () => {
    const { out, writes } = sink();
    const w = new LineWriter(out);
    await Promise.all([w.send(msg(1)), w.send(msg(2)), w.send(msg(3))]);
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual([`${JSON.stringify(msg(1))}\n${JSON.stringify(msg(2))}\n${JSON.stringify(msg(3))}\n`]);
    await w.send(msg(4));
    await nextTurn();
    expect(writes).toHaveLength(2);
    expect(writes[1]).toBe(`${JSON.stringify(msg(4))}\n`);
  });

  it("flush() writes what is queued at once (before the stream is ended)", () => {
    const { out, writes } = sink();
    const w = new LineWriter(out);
    void w.send(msg(1));
    w.flush();
    out.end();
    expect(writes).toEqual([`${JSON.stringify(msg(1))}\n`]);
  });

  it("holds later sends until the stream drained (backpressure)", async () => {
    const { out, writes } = sink(1);
    const w = new LineWriter(out);
    await w.send(msg(1));
    await nextTurn();
    let resolved = false;
    const second = w.send(msg(2)).then(() => (resolved = true));
    expect(resolved).toBe(false);
    await second;
    expect(resolved).toBe(true);
    await nextTurn();
    expect(writes).toHaveLength(2);
  });

  it("drops what is queued when the stream is gone, and a wait for a drain ends with the stream", async () => {
    const { out, writes } = sink(1);
    const w = new LineWriter(out);
    void w.send(msg(1));
    await nextTurn();
    const waiting = w.send(msg(2));
    out.destroy();
    await waiting;
    await nextTurn();
    expect(writes).toEqual([`${JSON.stringify(msg(1))}\n`]);
  });
});
