import { createReadStream } from "node:fs";
import { BuiltinError } from "../common/tool.js";

/** A window of lines cut from a file. */
export interface LineWindow {
  lines: Buffer[];
  /** Lines of the file, when it was read to the end. */
  total?: number;
  /** The byte budget ended the window before `count` lines. */
  truncated: boolean;
}

/**
 * Streams a file and keeps lines `first .. first+count-1` (1-based, "\n"-separated exactly as
 * `text.split("\n")` would cut them) within `maxBytes`. Stops reading once the window is full,
 * so a window near the top of a huge file costs only that much I/O.
 */
export async function streamLineWindow(
  abs: string,
  first: number,
  count: number,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<LineWindow> {
  const lines: Buffer[] = [];
  let bytes = 0;
  let lineNo = 0;
  let partial: Buffer[] = [];
  let partialLen = 0;
  let firstChunk = true;
  const stream = createReadStream(abs, { highWaterMark: 64 * 1024, ...(signal ? { signal } : {}) });

  // One complete line; returns true when the window is done.
  const keep = (line: Buffer): "more" | "full" | "budget" => {
    lineNo++;
    if (lineNo < first) return "more";
    if (bytes + line.length > maxBytes) return "budget";
    bytes += line.length + 1;
    lines.push(line);
    return lines.length >= count ? "full" : "more";
  };

  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (firstChunk && chunk.subarray(0, 8192).includes(0)) throw new BuiltinError("binary file");
      firstChunk = false;
      let start = 0;
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, nl);
        const line = partialLen > 0 ? Buffer.concat([...partial, piece]) : piece;
        partial = [];
        partialLen = 0;
        start = nl + 1;
        const r = keep(line);
        if (r !== "more") return { lines, truncated: r === "budget" };
      }
      if (start < chunk.length) {
        partial.push(chunk.subarray(start));
        partialLen += chunk.length - start;
        // One line longer than the whole budget: nothing more can fit.
        if (partialLen > maxBytes && lineNo + 1 >= first) return { lines, truncated: true };
      }
    }
    const r = keep(Buffer.concat(partial));
    return { lines, total: lineNo, truncated: r === "budget" };
  } finally {
    stream.destroy();
  }
}
