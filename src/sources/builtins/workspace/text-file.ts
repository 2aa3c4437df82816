import { readFile, stat } from "node:fs/promises";
import { BuiltinError } from "../common/tool.js";
import type { Workspace } from "./workspace.js";

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Decodes bytes as UTF-8, refusing binary content instead of returning replacement soup. */
export function decodeText(bytes: Uint8Array, shown: string): string {
  if (bytes.subarray(0, 8192).includes(0)) throw new BuiltinError(`"${shown}" is a binary file`);
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new BuiltinError(`"${shown}" is not a UTF-8 text file`);
  }
}

/** Reads a whole text file within the size cap (edit, apply_patch). */
export async function readTextFile(abs: string, ws: Workspace, maxBytes: number): Promise<string> {
  const st = await stat(abs);
  const shown = ws.display(abs);
  if (st.isDirectory()) throw new BuiltinError(`"${shown}" is a directory`);
  if (st.size > maxBytes) throw new BuiltinError(`"${shown}" is ${st.size} bytes, over the limit of ${maxBytes} bytes`);
  return decodeText(await readFile(abs), shown);
}
