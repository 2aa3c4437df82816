// CPU per call of an http tool with `upstreamAuth: { mode: exchange }` once the exchange is cached
// (every call after the first) against `passthrough`, both behind a JWT caller: two gateways, each
// measured in alternation in one run (P, X, P, X, …), medians with [min–max] and each round's ratio.
// A local JWKS, an RFC 8693 token endpoint (counts its requests: 1 expected) and the upstream are
// served from this process. A third gateway sends the caller's own stored credential
// (`user-secret`, set once with PUT /me/credentials; the same vault read as a stored user-oauth
// token), in memory or, with BENCH_REDIS_URL, in Redis.
// Usage: node bench/upstream-auth.mjs [concurrency]
// Env: BENCH_ROUNDS (5), BENCH_SECONDS (3), BENCH_REDIS_URL. Targets: exchange ÷ passthrough ≤ 1.1,
// user-secret ÷ exchange ≤ 1.1.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { readFileSync } from "node:fs";
import path from "node:path";
import { measure, median, poster, serveLocal, spread, startJwks, startToolnexus } from "./lib.mjs";

const c = Number(process.argv[2] ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

const jwks = await startJwks();
const sign = jwks.sign;
const caller = await sign("bench-user", "toolnexus");
const issued = await sign("bench-user", "bench-upstream");
const tokenEndpoint = await serveLocal((_q, res) =>
  res.writeHead(200, { "content-type": "application/json" }).end(
    JSON.stringify({
      access_token: issued,
      token_type: "Bearer",
      issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
      expires_in: 3600,
    }),
  ),
);
const upstream = await serveLocal((_q, res) => res.writeHead(200, { "content-type": "text/plain" }).end("ok"));

const config = (upstreamAuth, extra = {}) => ({
  server: { logLevel: "info", stateSecret: "bench-state-secret-0123456789abcdef" },
  ...extra,
  auth: {
    apiKeys: [],
    jwt: { issuer: "bench-idp", audience: "toolnexus", jwksUri: jwks.jwksUri },
    policies: [{ id: "bench", groups: ["bench"], tools: ["*"] }],
  },
  http: [{ name: "up", url: `${upstream.url}/x`, method: "POST", upstreamAuth }],
});
const exchange = {
  mode: "exchange",
  tokenEndpoint: `${tokenEndpoint.url}/token`,
  audience: "bench-upstream",
  clientId: "gw",
  clientSecret: "bench-secret",
};
const dir = await mkdtemp(path.join(tmpdir(), "tn-upstream-auth-"));
const variants = [
  { label: "passthrough", config: config({ mode: "passthrough" }) },
  { label: "exchange", config: config(exchange) },
  {
    label: "user-secret",
    config: config({ mode: "user-secret" }, process.env.BENCH_REDIS_URL ? { redis: { url: process.env.BENCH_REDIS_URL } } : {}),
  },
];
const rows = {};
try {
  for (const v of variants) v.server = await startToolnexus(dir, v.config, v.label);
  const userSecret = variants[2].server;
  const put = await fetch(`${userSecret.url}/me/credentials/up`, {
    method: "PUT",
    headers: { authorization: `Bearer ${caller}`, "content-type": "application/json" },
    body: JSON.stringify({ secret: issued }),
  });
  if (put.status !== 204) throw new Error(`PUT /me/credentials/up: ${put.status}`);
  for (let r = 0; r < ROUNDS; r++) {
    for (const v of variants) {
      const call = poster(v.server, "/tools/up/execute", {}, "ok", { authorization: `Bearer ${caller}` });
      (rows[v.label] ??= []).push(await measure(call, c, { seconds: SECONDS, warmup: r === 0 ? 2 : 0.5, server: v.server }));
    }
  }
} finally {
  await Promise.all(variants.map((v) => v.server?.stop()));
  jwks.close();
  for (const s of [tokenEndpoint, upstream]) s.server.close();
  await rm(dir, { recursive: true, force: true });
}
const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`c=${c}, ${ROUNDS} rounds of ${SECONDS} s, ${new Date().toISOString().slice(0, 16)}Z, load avg ${load}`);
for (const [label, runs] of Object.entries(rows)) {
  console.log(
    `${label.padEnd(12)} CPU µs/call ${spread(
      runs.map((x) => x.cpuUs),
      1,
    )}   req/s ${spread(
      runs.map((x) => x.rps),
      0,
    )}`,
  );
}
const ratios = rows.exchange.map((x, i) => x.cpuUs / rows.passthrough[i].cpuUs);
console.log(`exchange ÷ passthrough CPU/call: ${median(ratios).toFixed(3)} [${ratios.map((q) => q.toFixed(3)).join(" ")}] (target ≤ 1.1)`);
const own = rows["user-secret"].map((x, i) => x.cpuUs / rows.exchange[i].cpuUs);
console.log(`user-secret ÷ exchange CPU/call: ${median(own).toFixed(3)} [${own.map((q) => q.toFixed(3)).join(" ")}] (target ≤ 1.1)`);
console.log(`token endpoint requests: ${tokenEndpoint.server.hits} (the first call's exchange; then cache hits)`);
