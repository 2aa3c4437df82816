import { BuiltinError } from "../common/tool.js";
import type { HunkLine, PatchChunk } from "./parse.js";

type Eq = (a: string, b: string) => boolean;
// Tried in order: exact first, then forgiving of the whitespace models tend to get wrong.
const MATCHERS: Eq[] = [(a, b) => a === b, (a, b) => a.trimEnd() === b.trimEnd(), (a, b) => a.trim() === b.trim()];

/**
 * Applies the hunks of one Update to a file's text, in memory. Hunks match in order, each after
 * the previous one; a hunk that matches nowhere throws a BuiltinError and nothing is returned.
 * Line endings (LF or CRLF) and the presence of a final newline are preserved.
 */
export function applyChunks(original: string, chunks: readonly PatchChunk[], shownPath: string): string {
  const eol = original.includes("\r\n") ? "\r\n" : "\n";
  const lines = original.split(eol);
  const finalNewline = lines.at(-1) === "";
  if (finalNewline) lines.pop();

  const edits: { at: number; remove: number; insert: string[] }[] = [];
  let cursor = 0;
  for (const [n, chunk] of chunks.entries()) {
    if (chunk.context !== undefined) {
      const at = seek(lines, [chunk.context], cursor, false);
      if (at < 0) throw new BuiltinError(`hunk ${n + 1} of ${shownPath}: context line "${chunk.context}" not found`);
      cursor = at + 1;
    }
    let body = chunk.lines;
    let oldLines = oldSide(body);
    if (oldLines.length === 0) {
      // Pure insertion: after its context line if it has one, else at the end of the file.
      edits.push({ at: chunk.context !== undefined ? cursor : lines.length, remove: 0, insert: body.map((l) => l.text) });
      continue;
    }
    let at = seek(lines, oldLines, cursor, chunk.endOfFile);
    if (at < 0 && oldLines.at(-1) === "") {
      // A trailing blank line in the hunk is often an artefact of the file's final newline.
      const last = body.findLastIndex((l) => l.op !== "+");
      body = body.filter((_, k) => k !== last);
      oldLines = oldSide(body);
      at = seek(lines, oldLines, cursor, chunk.endOfFile);
    }
    if (at < 0) {
      throw new BuiltinError(
        `hunk ${n + 1} of ${shownPath} does not match the file; expected these lines:\n${oldSide(chunk.lines).join("\n")}`,
      );
    }
    // Context lines keep the file's own text (they may have matched modulo whitespace).
    const insert: string[] = [];
    let k = 0;
    for (const l of body) {
      if (l.op === "+") insert.push(l.text);
      else if (l.op === " ") insert.push(lines[at + k++] ?? l.text);
      else k++;
    }
    edits.push({ at, remove: oldLines.length, insert });
    cursor = at + oldLines.length;
  }
  for (const e of [...edits].sort((a, b) => b.at - a.at)) lines.splice(e.at, e.remove, ...e.insert);
  return lines.join(eol) + (lines.length > 0 && finalNewline ? eol : "");
}

function oldSide(body: readonly HunkLine[]): string[] {
  return body.filter((l) => l.op !== "+").map((l) => l.text);
}

/** First index ≥ `from` where `pattern` matches `lines` (at the end first when `atEnd`), or -1. */
function seek(lines: readonly string[], pattern: readonly string[], from: number, atEnd: boolean): number {
  if (pattern.length > lines.length) return -1;
  for (const eq of MATCHERS) {
    const matchesAt = (i: number) => pattern.every((p, k) => eq(lines[i + k] ?? "", p));
    if (atEnd) {
      const i = lines.length - pattern.length;
      if (i >= from && matchesAt(i)) return i;
    }
    for (let i = from; i + pattern.length <= lines.length; i++) if (matchesAt(i)) return i;
  }
  return -1;
}
