// How much a closed loop at c=32 magnifies work added to a server: bare Fastify with N µs of
// busy work per call (bench/bare-server.mjs), each N alternated with the others, server CPU per
// call. Each µs of work added read ~1.5 µs in the figure (history/2026-12-06-execute-path.md):
// a slower server leaves the load generator, on the same cores, waiting and waking more often.
// Usage: node bench/closed-loop-gain.mjs [µs,µs,…=0,5,10,20,40]; BENCH_ROUNDS (5).
import { spawn } from "node:child_process";
import path from "node:path";
import { Pool } from "undici";
import { ROOT, drive, freePort, median, procCpuMs } from "./lib.mjs";

const spins = (process.argv[2] ?? "0,5,10,20,40").split(",").map(Number);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const servers = [];
for (const us of spins) {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, "bench/bare-server.mjs"), String(port), String(us)], { stdio: "inherit" });
  const url = `http://127.0.0.1:${port}`;
  while (
    !(await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    ))
  )
    await new Promise((r) => setTimeout(r, 20));
  const pool = new Pool(url, { connections: 64 });
  const body = JSON.stringify({ arguments: { text: "hello" } });
  const call = async () => {
    const res = await pool.request({ path: "/echo", method: "POST", headers: { "content-type": "application/json" }, body });
    await res.body.text();
  };
  servers.push({ us, child, pool, call, cpu: [] });
}
try {
  for (const s of servers) await drive(s.call, 32, 2);
  for (let round = 0; round < rounds; round++) {
    for (const s of round % 2 ? [...servers].reverse() : servers) {
      const before = procCpuMs(s.child.pid);
      const { n } = await drive(s.call, 32, 3);
      s.cpu.push(((procCpuMs(s.child.pid) - before) * 1000) / n);
    }
  }
  console.log(`c=32, ${rounds} rounds of 3 s, ${new Date().toISOString().slice(0, 16)}Z`);
  const floor = median(servers[0].cpu);
  for (const s of servers) {
    const cpu = median(s.cpu);
    console.log(`busy ${String(s.us).padStart(3)} µs   server CPU ${cpu.toFixed(1)} µs/call   added ${(cpu - floor).toFixed(1)} µs`);
  }
} finally {
  for (const s of servers) {
    s.child.kill();
    await s.pool.close();
  }
}
