// `node bench/auth-tracing.mjs` (after `npm run build`): execute req/s with no auth, an API
// key, a JWT (verified against a local JWKS), and with OpenTelemetry tracing on (exporting to
// a local OTLP sink) vs off. Servers run in child processes; 127.0.0.1 only; bounded in time.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { load, row, startChild } from "./autocannon.mjs";
import { serveLocal, startJwks } from "./lib.mjs";

const duration = Number(process.env.BENCH_SECONDS ?? 10);
const here = import.meta.dirname;
const body = { arguments: { text: "hello" } };
const KEY = "bench-api-key-0123456789abcdef";

const jwks = await startJwks();
const otlp = await serveLocal((_req, res) => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
const token = await jwks.sign("bench-user", "toolnexus");

const dir = mkdtempSync(path.join(tmpdir(), "tn-bench-"));
const plugin = path.join(here, "fixtures", "plugins", "echo.mjs");
function config(name, extra) {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ server: { host: "127.0.0.1", port: 0, logLevel: "warn" }, plugins: [plugin], ...extra }));
  return file;
}
const auth = {
  apiKeys: [{ id: "bench-key", key: KEY }],
  jwt: { issuer: "bench-idp", audience: "toolnexus", jwksUri: jwks.jwksUri },
  policies: [{ id: "bench", groups: ["bench"], tools: ["*"] }],
};
const tracing = { telemetry: { otlp: { endpoint: otlp.url } } };
const runs = [
  ["no auth, tracing off", config("none", {}), {}],
  ["API key, tracing off", config("key", { auth }), { authorization: `Bearer ${KEY}` }],
  ["JWT (ES256), tracing off", config("jwt", { auth }), { authorization: `Bearer ${token}` }],
  ["no auth, tracing on", config("traced", tracing), {}],
  ["JWT (ES256), tracing on", config("jwt-traced", { auth, ...tracing }), { authorization: `Bearer ${token}` }],
  [
    "no auth, tracing on, 10 % sampled",
    config("sampled", tracing),
    {},
    { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" },
  ],
];

console.log(`\nexecute of the native echo, c=32, ${duration} s each after 2 s warm-up (${new Date().toISOString().slice(0, 10)})`);
const results = [];
try {
  for (const [name, file, headers, env = {}] of runs) {
    // The child inherits this environment: the sampler variables apply to that run only.
    Object.assign(process.env, env);
    const tn = await startChild(path.join(here, "toolnexus-server.mjs"), [file]);
    for (const k of Object.keys(env)) delete process.env[k];
    try {
      const url = `${tn.url}/tools/echo/execute`;
      await load(url, body, { duration: 2, headers });
      const cpu0 = await tn.cpu();
      const r = await load(url, body, { duration, headers });
      // Server CPU per call: unlike req/s it hardly moves when other work shares the cores.
      r.cpuUs = ((await tn.cpu()) - cpu0) / r.total;
      results.push([name, r]);
      console.log(`${row(name, r)}   server CPU ${r.cpuUs.toFixed(0).padStart(4)} µs/call`);
    } finally {
      await tn.stop();
    }
  }
  const [base] = results;
  for (const [name, r] of results.slice(1)) {
    console.log(
      `${name.padEnd(34)} req/s ÷ no auth = ${(r.rps / base[1].rps).toFixed(2)}   CPU/call ÷ no auth = ${(r.cpuUs / base[1].cpuUs).toFixed(2)}`,
    );
  }
  console.log(`OTLP export requests received: ${otlp.server.hits}`);
} finally {
  jwks.close();
  otlp.server.close();
  rmSync(dir, { recursive: true, force: true });
}
