// Instructions per request of a server under load, from valgrind's callgrind: a figure that does
// not move with the machine's load (CPU time does). The server runs under callgrind; after a
// warm-up (so the JIT has settled) the counters are zeroed, `n` requests are made from `c`
// closed-loop workers, and the counters are dumped: instructions ÷ n, every thread included
// (GC helpers and the JIT's compile threads too).
// Usage: npm run build && node bench/instructions-per-call.mjs [variant|bare] [warm] [n] [c]
// variant: execute (= none), or a variant of bench/variants.mjs (apikey, jwt, traced, sampled10,
// unsampled), or mcp: REST → server-everything's echo over stdio (the gateway counted, not the
// MCP server, which valgrind does not follow). BENCH_CLI=<other dist>/cli.js for a before/after. Slow: ~50× under valgrind,
// start-up ~1 min. BENCH_CALLGRIND_OUT=<file> keeps the measured dump (for callgrind_annotate).
import { execFileSync, spawn } from "node:child_process";
import { openSync } from "node:fs";
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Pool } from "undici";
import { CLI, EVERYTHING, ROOT, freePort } from "./lib.mjs";
import { startVariants } from "./variants.mjs";

const [what = "execute", warm = "20000", n = "5000", c = "32"] = process.argv.slice(2);
const dir = await mkdtemp(path.join(tmpdir(), "tn-callgrind-"));
const port = await freePort();
const out = path.join(dir, "callgrind.out");
const variants = await startVariants();
let args = [path.join(ROOT, "bench/bare-server.mjs"), String(port)];
let v = { headers: {}, env: {} };
if (what !== "bare") {
  v = what === "mcp" ? { ...variants.variant("none") } : variants.variant(what === "execute" ? "none" : what);
  // The MCP server runs under plain node: only the gateway is under valgrind.
  if (what === "mcp") v.config = { ...v.config, mcpServers: { everything: { command: [process.execPath, EVERYTHING, "stdio"] } } };
  const file = path.join(dir, "toolnexus.json");
  await writeFile(
    file,
    JSON.stringify({
      ...v.config,
      server: { ...v.config.server, host: "127.0.0.1", port, maxConcurrent: 1024, headersTimeoutMs: 600_000, requestTimeoutMs: 600_000 },
    }),
  );
  args = [CLI, "serve", "--config", file];
}
const log = openSync(path.join(dir, "server.log"), "a");
// The timeouts are raised above: under valgrind a queued request may wait longer than 10 s.
// --smc-check=all: V8 writes and patches machine code at run time. --v8-pool-size=0: V8's
// worker threads (concurrent compilers, GC helpers) hang Node 24 under valgrind; their work runs
// on the main thread instead, the same way for every build measured. --instr-atstart=no:
// start-up and the warm-up run without callgrind's counting (several times faster; on a loaded
// machine start-up under full instrumentation took more than ten minutes); counting is switched
// on just before the measured requests.
const child = spawn(
  "valgrind",
  [
    "--tool=callgrind",
    "--smc-check=all",
    "--instr-atstart=no",
    `--callgrind-out-file=${out}`,
    process.execPath,
    "--v8-pool-size=0",
    ...args,
  ],
  {
    stdio: ["ignore", log, "ignore"],
    env: { ...process.env, ...v.env },
  },
);
const url = `http://127.0.0.1:${port}`;
const pool = new Pool(url, { connections: 64 });
try {
  const deadline = Date.now() + 1_800_000;
  while (
    !(await fetch(`${url}${what === "bare" ? "/healthz" : "/readyz"}`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error("the server did not start under valgrind");
    await new Promise((r) => setTimeout(r, 200));
  }
  const route = what === "bare" ? "/echo" : what === "mcp" ? "/tools/everything_echo/execute" : "/tools/echo/execute";
  const body = JSON.stringify({ arguments: what === "mcp" ? { message: "hello" } : { text: "hello" } });
  const run = async (total) => {
    let left = total;
    await Promise.all(
      Array.from({ length: Number(c) }, async () => {
        while (left-- > 0) {
          const res = await pool.request({
            path: route,
            method: "POST",
            headers: { "content-type": "application/json", ...v.headers },
            body,
          });
          await res.body.text();
          if (res.statusCode !== 200) throw new Error(`${route}: HTTP ${res.statusCode}`);
        }
      }),
    );
  };
  await run(Number(warm));
  execFileSync("callgrind_control", ["-i", "on", String(child.pid)], { stdio: "ignore" });
  execFileSync("callgrind_control", ["-z", String(child.pid)], { stdio: "ignore" });
  await run(Number(n));
  execFileSync("callgrind_control", ["-d", String(child.pid)], { stdio: "ignore" });
  await new Promise((r) => setTimeout(r, 500));
  // The dump after the zeroing is the one with a numeric suffix.
  const dump = (await readdir(dir)).find((f) => /^callgrind\.out\.\d+$/.test(f));
  const total = Number((await readFile(path.join(dir, dump), "utf8")).match(/^(?:summary|totals): (\d+)/m)?.[1]);
  if (process.env.BENCH_CALLGRIND_OUT) await copyFile(path.join(dir, dump), process.env.BENCH_CALLGRIND_OUT);
  console.log(`${what} c=${c}: ${(total / Number(n) / 1000).toFixed(1)} k instructions/request (${n} requests after ${warm} of warm-up)`);
} finally {
  child.kill("SIGKILL");
  variants.close();
  await pool.close();
  await rm(dir, { recursive: true, force: true });
}
