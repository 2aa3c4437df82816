import { Worker } from "node:worker_threads";
import { BuiltinError } from "../common/tool.js";

/** What the grep worker is asked to do. */
export interface GrepJob {
  files: string[];
  /** Real path of the workspace: a file whose real path leaves it is skipped. */
  root: string;
  pattern: string;
  /** Stop after this many matches (the caller asks for limit + 1 to know there are more). */
  maxMatches: number;
  maxFileBytes: number;
  /** Longer matching lines are cut to this many characters. */
  maxLineChars: number;
}

/** One matching line. */
interface GrepHit {
  file: string;
  line: number;
  text: string;
}

/** What the worker found. */
export interface GrepOutcome {
  hits: GrepHit[];
  skippedLarge: number;
  skippedBinary: number;
}

// Plain CommonJS evaluated in a worker thread: a pathological regex (catastrophic backtracking)
// then blocks only the worker, which terminate() interrupts, never the service's event loop.
const WORKER_SOURCE = `
const { parentPort, workerData: job } = require("node:worker_threads");
const fs = require("node:fs");
const path = require("node:path");
const re = new RegExp(job.pattern);
const inside = (p) => { const r = path.relative(job.root, p); return r === "" || (!r.startsWith("..") && !path.isAbsolute(r)); };
const out = { hits: [], skippedLarge: 0, skippedBinary: 0 };
const search = () => {
for (const file of job.files) {
  let buf;
  try {
    if (!inside(fs.realpathSync(file))) continue;
    const st = fs.statSync(file);
    if (!st.isFile()) continue;
    if (st.size > job.maxFileBytes) { out.skippedLarge++; continue; }
    buf = fs.readFileSync(file);
  } catch { continue; }
  if (buf.subarray(0, 8192).includes(0)) { out.skippedBinary++; continue; }
  const lines = buf.toString("utf8").split("\\n");
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i].endsWith("\\r") ? lines[i].slice(0, -1) : lines[i];
    if (!re.test(text)) continue;
    out.hits.push({ file, line: i + 1, text: text.length > job.maxLineChars ? text.slice(0, job.maxLineChars) + "…" : text });
    if (out.hits.length >= job.maxMatches) return;
  }
}
};
search();
parentPort.postMessage(out);
`;

/**
 * Runs a search in a worker thread, stopped (terminated) when `signal` aborts or `budgetMs`
 * passes. Throws the signal's reason on abort and a BuiltinError when the budget ran out.
 */
export function runGrepWorker(job: GrepJob, budgetMs: number, signal?: AbortSignal): Promise<GrepOutcome> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<GrepOutcome>((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: job, resourceLimits: { maxOldGenerationSizeMb: 256 } });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      void worker.terminate();
      fn();
    };
    const onAbort = () => finish(() => reject(signal?.reason));
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new BuiltinError(`the search did not finish within ${budgetMs} ms and was stopped; simplify the pattern or narrow the path`),
          ),
        ),
      budgetMs,
    );
    signal?.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (m: GrepOutcome) => finish(() => resolve(m)));
    worker.once("error", (err) => finish(() => reject(err)));
    worker.once("exit", (code) => finish(() => reject(new Error(`grep worker exited with code ${code}`))));
  });
}
