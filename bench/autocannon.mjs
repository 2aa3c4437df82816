// Helpers of the single-scenario benchmarks (executions, /mcp, auth and tracing): servers
// forked from bench/toolnexus-server.mjs and autocannon runs. bench/compare.mjs uses lib.mjs.
import { fork } from "node:child_process";
import autocannon from "autocannon";

/** Forks a server script that sends `{ port }` once listening (with `env` added to ours); returns its URL, pid and a stop(). */
export async function startChild(script, args = [], env = {}) {
  const child = fork(script, args, { env: { ...process.env, ...env }, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const { port } = await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  // cpu(): the child's process.cpuUsage() in µs (user + system), for servers that answer "cpu" (toolnexus-server.mjs).
  const cpu = () =>
    new Promise((resolve) => {
      child.once("message", (m) => resolve(m.cpu.user + m.cpu.system));
      child.send("cpu");
    });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    cpu,
    stop: () =>
      new Promise((r) => {
        child.once("exit", r);
        child.kill("SIGTERM");
      }),
  };
}

/** Runs autocannon against one POST endpoint; returns req/s and latency percentiles (ms). */
export async function load(url, body, { connections = 32, duration = 10, headers = {} } = {}) {
  const result = await autocannon({
    url,
    method: "POST",
    connections,
    duration,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  if (result.errors || result.non2xx) throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, total: result.requests.total };
}

/** Formats one result row. */
export function row(name, r) {
  return `${name.padEnd(34)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${String(r.p50).padStart(4)} ms   p99 ${String(r.p99).padStart(4)} ms`;
}
