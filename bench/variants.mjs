// The server variants the auth and tracing figures compare, shared by bench/ab.mjs,
// bench/instructions-per-call.mjs and bench/table.mjs: the native echo plugin behind no auth,
// an API key, a JWT (ES256, verified against a JWKS served here, one policy granting `*`), and
// tracing exporting to an OTLP/HTTP sink served here (every request sampled, 10 %, none).
import { ECHO_PLUGIN, serveLocal, startJwks } from "./lib.mjs";

export const API_KEY = "bench-api-key-0123456789abcdef";

/**
 * Starts the JWKS and the OTLP sink; returns `variant(name)` → { config, headers, env } for a
 * server of that variant (logLevel info, so the per-call line is written), and close().
 */
export async function startVariants() {
  const jwks = await startJwks();
  const otlp = await serveLocal((_req, res) => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
  const token = await jwks.sign("bench-user", "toolnexus");
  const auth = {
    apiKeys: [{ id: "bench-key", key: API_KEY }],
    jwt: { issuer: "bench-idp", audience: "toolnexus", jwksUri: jwks.jwksUri },
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
      jwks.close();
      otlp.server.close();
    },
  };
}
