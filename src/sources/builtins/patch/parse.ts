import { BuiltinError } from "../common/tool.js";

/** One line of a hunk: kept (" "), removed ("-") or added ("+"). */
export interface HunkLine {
  op: " " | "-" | "+";
  text: string;
}

/** One `@@` section of an Update. */
export interface PatchChunk {
  /** Text after "@@ ": a line to find first; the chunk matches after it. */
  context?: string;
  lines: HunkLine[];
  /** "*** End of File" followed: the chunk belongs at the end of the file. */
  endOfFile: boolean;
}

/** One file operation of a patch. */
export type PatchOp =
  | { type: "add"; path: string; content: string }
  | { type: "delete"; path: string }
  | { type: "update"; path: string; moveTo?: string; chunks: PatchChunk[] };

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE = "*** Move to: ";
const EOF_MARK = "*** End of File";

/**
 * Parses opencode's patch grammar (`*** Begin Patch` … `*** End Patch` with Add / Update
 * (optionally `*** Move to:`) / Delete File sections and `@@` hunks of " ", "-", "+" lines).
 * A heredoc wrapper (`<<'EOF'` … `EOF`), as models sometimes send, is tolerated.
 */
export function parsePatch(patchText: string): PatchOp[] {
  let lines = patchText.replace(/\r\n/g, "\n").trim().split("\n");
  if (/^<<\s*['"]?\w+['"]?\s*$/.test(lines[0] ?? "") && lines.length >= 2) lines = lines.slice(1, -1);
  if (lines[0]?.trim() !== BEGIN) throw new BuiltinError(`the patch must start with "${BEGIN}"`);
  if (lines.at(-1)?.trim() !== END) throw new BuiltinError(`the patch must end with "${END}"`);
  const body = lines.slice(1, -1);

  const ops: PatchOp[] = [];
  let i = 0;
  const isHeader = (l: string) => l.startsWith(ADD) || l.startsWith(DELETE) || l.startsWith(UPDATE);
  while (i < body.length) {
    const line = body[i] ?? "";
    if (line.trim() === "") {
      i++;
      continue;
    }
    if (line.startsWith(ADD)) {
      const path = headerPath(line, ADD);
      const content: string[] = [];
      for (i++; i < body.length && !isHeader(body[i] ?? ""); i++) {
        const l = body[i] ?? "";
        if (!l.startsWith("+")) throw new BuiltinError(`line ${i + 2}: every line of an added file must start with "+" (in ${path})`);
        content.push(l.slice(1));
      }
      ops.push({ type: "add", path, content: content.length > 0 ? `${content.join("\n")}\n` : "" });
    } else if (line.startsWith(DELETE)) {
      ops.push({ type: "delete", path: headerPath(line, DELETE) });
      i++;
    } else if (line.startsWith(UPDATE)) {
      const path = headerPath(line, UPDATE);
      i++;
      let moveTo: string | undefined;
      if ((body[i] ?? "").startsWith(MOVE)) moveTo = headerPath(body[i++] ?? "", MOVE);
      const start = i;
      while (i < body.length && !isHeader(body[i] ?? "")) i++;
      const chunks = parseChunks(body.slice(start, i), start + 2, path);
      if (chunks.length === 0 && moveTo === undefined) throw new BuiltinError(`the update of ${path} has no hunks`);
      ops.push({ type: "update", path, ...(moveTo !== undefined ? { moveTo } : {}), chunks });
    } else {
      throw new BuiltinError(`line ${i + 2}: expected "${ADD}", "${UPDATE}" or "${DELETE}", got "${line}"`);
    }
  }
  return ops;
}

function headerPath(line: string, prefix: string): string {
  const p = line.slice(prefix.length).trim();
  if (p === "") throw new BuiltinError(`"${prefix.trim()}" needs a path`);
  return p;
}

function parseChunks(lines: string[], firstLineNo: number, path: string): PatchChunk[] {
  const chunks: PatchChunk[] = [];
  let cur: PatchChunk | undefined;
  const open = (context?: string): PatchChunk => {
    const c: PatchChunk = { lines: [], endOfFile: false, ...(context ? { context } : {}) };
    chunks.push(c);
    return c;
  };
  for (const [k, line] of lines.entries()) {
    if (line.startsWith("@@")) {
      cur = open(line.slice(2).trim() || undefined);
      continue;
    }
    if (line.trim() === EOF_MARK) {
      if (!cur) throw new BuiltinError(`line ${firstLineNo + k}: "${EOF_MARK}" outside a hunk (in ${path})`);
      cur.endOfFile = true;
      continue;
    }
    // The first hunk may leave out its "@@" line.
    cur ??= open();
    const tag = line[0];
    if (line === "") {
      cur.lines.push({ op: " ", text: "" });
    } else if (tag === " " || tag === "-" || tag === "+") {
      cur.lines.push({ op: tag, text: line.slice(1) });
    } else {
      throw new BuiltinError(`line ${firstLineNo + k}: a hunk line must start with " ", "-" or "+", got "${line}" (in ${path})`);
    }
  }
  return chunks;
}
