// `node bench/execution-cost.mjs`: where an execution's cost goes. Submit the native echo, then
// GET at once until terminal (the table's "execution submit + poll" row) or with `Prefer: wait=5`, on the in-process
// store and on Redis, c=1 and c=32: per execution the server's CPU µs, the polls (GETs) it took,
// Redis' own CPU µs and the commands Redis ran (INFO commandstats; a script's inner commands
// count too, so `evalsha`/`exec` are the round trips that carry them). With
// BENCH_CLI_BEFORE=<other build>/dist/cli.js each row is run against both builds, alternated
// within every round, each build on a Redis of its own. 127.0.0.1 only; bounded in time.
// Env: BENCH_ROUNDS (3), BENCH_SECONDS (4), BENCH_CLI_BEFORE, BENCH_STORES (memory,redis).
import { mkdtemp, rm } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { CLI, ECHO_PLUGIN, measure, spread, startRedis, startToolnexus } from "./lib.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const STORES = (process.env.BENCH_STORES ?? "memory,redis").split(",");
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const LIMIT_S = 600;
const guard = setTimeout(() => {
  console.error(`bench/execution-cost.mjs: not done in ${LIMIT_S} s; stopping`);
  process.exit(2);
}, LIMIT_S * 1000);
guard.unref();
const loadAvg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const BODY = JSON.stringify({ arguments: { text: "hello" } });
const json = { "content-type": "application/json" };

/** INFO of the Redis at `url`: its CPU ms and the calls of each command so far. */
async function redisInfo(url) {
  const client = new Redis(url);
  const text = await client.info("all");
  client.disconnect();
  const cpuMs = ["used_cpu_sys", "used_cpu_user"].reduce((s, k) => s + Number(new RegExp(`${k}:([\\d.]+)`).exec(text)?.[1] ?? 0) * 1000, 0);
  const calls = {};
  for (const [, cmd, n] of text.matchAll(/cmdstat_([\w|]+):calls=(\d+)/g)) calls[cmd] = Number(n);
  return { cpuMs, calls };
}

/** Submit, then GET at once until terminal (with `prefer`: Prefer: wait=5); counts the GETs in `tally.polls`. */
const execution = (s, tally, prefer) => async () => {
  const res = await s.pool.request({ path: "/tools/echo/executions", method: "POST", headers: json, body: BODY });
  let e = JSON.parse(await res.body.text());
  if (res.statusCode !== 202) throw new Error(`submit: HTTP ${res.statusCode}`);
  while (e.status === "queued" || e.status === "running") {
    tally.polls++;
    const r = await s.pool.request({ path: `/executions/${e.id}`, method: "GET", headers: prefer ? { prefer: "wait=5" } : {} });
    e = JSON.parse(await r.body.text());
  }
  if (e.status !== "succeeded") throw new Error(`execution ${e.status}`);
};

const builds = [["after", CLI]];
if (process.env.BENCH_CLI_BEFORE) builds.unshift(["before", process.env.BENCH_CLI_BEFORE]);
const dir = await mkdtemp(path.join(tmpdir(), "tn-xcost-"));
const redises = [];
const servers = {};
const results = {};
console.error(`load average before: ${loadAvg()}`);
try {
  for (const [name, cli] of builds) {
    const redis = await startRedis();
    redises.push(redis);
    const base = { server: { logLevel: "info" }, plugins: [ECHO_PLUGIN], executions: { maxActivePerCaller: 1000 } };
    servers[`${name} memory`] = { s: await startToolnexus(dir, base, `${name}-memory`, [], cli) };
    servers[`${name} redis`] = { s: await startToolnexus(dir, { ...base, redis: { url: redis.url } }, `${name}-redis`, [], cli), redis };
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const store of STORES) {
      for (const [c, mode] of [
        [1, "poll"],
        [32, "poll"],
        [1, "wait"],
        [32, "wait"],
      ]) {
        for (const [name] of builds) {
          const { s, redis } = servers[`${name} ${store}`];
          const tally = { polls: 0 };
          const call = execution(s, tally, mode === "wait");
          await measure(call, c, { seconds: 1, warmup: 0, server: s });
          tally.polls = 0;
          const before = redis && (await redisInfo(redis.url));
          const m = await measure(call, c, { seconds: SECONDS, warmup: 0, server: s });
          const row = { cpuUs: m.cpuUs, rps: m.rps, polls: tally.polls / m.n };
          if (redis) {
            const after = await redisInfo(redis.url);
            row.redisCpuUs = ((after.cpuMs - before.cpuMs) * 1000) / m.n;
            row.commands = Object.fromEntries(
              Object.entries(after.calls)
                .map(([k, v]) => [k, (v - (before.calls[k] ?? 0)) / m.n])
                .filter(([, v]) => v > 0.005),
            );
          }
          (results[`${store} c=${c} ${mode} ${name}`] ??= []).push(row);
          console.error(
            `round ${r + 1} ${store} c=${c} ${mode} ${name}: ${m.cpuUs.toFixed(0)} µs/execution, ${row.polls.toFixed(2)} polls`,
          );
        }
      }
    }
  }
} finally {
  await Promise.all(Object.values(servers).map(({ s }) => s.stop()));
  await Promise.all(redises.map((r) => r.stop()));
  await rm(dir, { recursive: true, force: true });
}
console.error(`load average after: ${loadAvg()}`);
console.log(`\n${ROUNDS} rounds of ${SECONDS} s, builds alternated within each round; median [min–max]\n`);
console.log(
  "| store | c | GET | build | server CPU µs/execution | polls/execution | executions/s | Redis CPU µs/execution | Redis commands/execution |",
);
console.log("|---|---:|---|---|---:|---:|---:|---:|---:|");
for (const [key, rows] of Object.entries(results)) {
  const [store, c, mode, build] = key.split(" ");
  const cmds = rows.at(-1).commands;
  const total = cmds && Object.values(cmds).reduce((a, b) => a + b, 0);
  console.log(
    `| ${store} | ${c.slice(2)} | ${mode === "wait" ? "Prefer: wait=5" : "at once"} | ${build} | ${spread(
      rows.map((x) => x.cpuUs),
      0,
    )} | ${spread(rows.map((x) => x.polls))} | ${spread(
      rows.map((x) => x.rps),
      0,
    )} | ${
      cmds
        ? spread(
            rows.map((x) => x.redisCpuUs),
            0,
          )
        : ""
    } | ${total ? total.toFixed(1) : ""} |`,
  );
}
console.log("\nRedis commands per execution (last round; inside scripts and MULTI included):\n");
for (const [key, rows] of Object.entries(results)) {
  const cmds = rows.at(-1).commands;
  if (!cmds) continue;
  const top = Object.entries(cmds)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v.toFixed(2)}`)
    .join(", ");
  console.log(`- ${key}: ${top}`);
}
clearTimeout(guard);
