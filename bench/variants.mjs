// The server variants the auth and tracing figures compare, shared by bench/ab.mjs,
// bench/instructions-per-call.mjs and bench/table.mjs: the native echo plugin behind no auth,
// an API key, a JWT (ES256, verified against a JWKS served here, one policy granting `*`), and
// tracing exporting to an OTLP/HTTP sink served here (every request sampled, 10 %, none).
import { createServer } from "node:http";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { ECHO_PLUGIN } from "./lib.mjs";

export const API_KEY = "bench-api-key-0123456789abcdef";

/** A local HTTP server answering every request with `answer()`; counts requests. */
async function serve(answer) {
  const server = createServer((req, res) => {
    server.hits++;
    req.resume();
    req.on("end", () => answer(req, res));
  });
  server.hits = 0;
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

/**
 * Starts the JWKS and the OTLP sink; returns `variant(name)` → { config, headers, env } for a
 * server of that variant (logLevel info, so the per-call line is written), and close().
 */
export async function startVariants() {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "bench", alg: "ES256", use: "sig" };
  const jwks = await serve((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] })));
  const otlp = await serve((_req, res) => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
  const token = await new SignJWT({ sub: "bench-user", groups: ["bench"] })
    .setProtectedHeader({ alg: "ES256", kid: "bench" })
    .setIssuer("bench-idp")
    .setAudience("toolnexus")
    .setIssuedAt()
    .setExpirationTime("2h")
    .sign(privateKey);
  const auth = {
    apiKeys: [{ id: "bench-key", key: API_KEY }],
    jwt: { issuer: "bench-idp", audience: "toolnexus", jwksUri: `${jwks.url}/jwks.json` },
    policies: [{ id: "bench", groups: ["bench"], tools: ["*"] }],
  };
  const telemetry = { otlp: { endpoint: otlp.url } };
  const base = { server: { logLevel: "info" }, plugins: [ECHO_PLUGIN] };
  const sampler = (s, arg) => ({ OTEL_TRACES_SAMPLER: s, ...(arg ? { OTEL_TRACES_SAMPLER_ARG: arg } : {}) });
  const VARIANTS = {
    none: { config: base },
    apikey: { config: { ...base, auth }, headers: { authorization: `Bearer ${API_KEY}` } },
    jwt: { config: { ...base, auth }, headers: { authorization: `Bearer ${token}` } },
    traced: { config: { ...base, telemetry }, env: sampler("parentbased_always_on") },
    sampled10: { config: { ...base, telemetry }, env: sampler("parentbased_traceidratio", "0.1") },
    unsampled: { config: { ...base, telemetry }, env: sampler("parentbased_always_off") },
  };
  return {
    names: Object.keys(VARIANTS),
    variant(name) {
      const v = VARIANTS[name];
      if (!v) throw new Error(`unknown variant ${name}; one of ${Object.keys(VARIANTS).join(", ")}`);
      return { headers: {}, env: {}, ...v };
    },
    otlpHits: () => otlp.server.hits,
    close() {
      jwks.server.close();
      otlp.server.close();
    },
  };
}
