import { pino } from "pino";
import type { LoadedConfig } from "../config/load.js";
import { ANONYMOUS } from "./auth/index.js";
import { buildServer } from "./build-server.js";
import { CatalogViews } from "./catalog/view.js";
import { SecretScrubber } from "./observability/logger.js";
import { ToolDocuments } from "./openapi/tool-documents.js";

/**
 * The OpenAPI document of the generic routes, exactly as committed in openapi/openapi.json
 * (`npm run openapi` writes it, a test compares it).
 */
export async function genericOpenApi(): Promise<string> {
  const app = await buildServer({ config: {}, logger: false });
  try {
    await app.ready();
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
  }
}

/**
 * The per-tool document a deployment of this config serves at `/openapi.json`, built without
 * listening (`toolnexus openapi --config PATH [--key-id ID]`, for CI pipelines that generate
 * clients): every tool, or only those the key `keyId` may use. Source failures are logged to
 * stderr; their tools are then absent, as they would be from the live service.
 */
export async function deploymentOpenApi(loaded: LoadedConfig, keyId?: string): Promise<string> {
  const app = await buildServer({
    config: loaded,
    logger: { level: process.env.TOOLNEXUS_LOG_LEVEL ?? "warn" },
    logDestination: pino.destination(2),
  });
  try {
    const { state } = app.toolnexus;
    const caller = keyId === undefined ? ANONYMOUS : state.auth.callerById(keyId);
    if (!caller) throw new Error(`no API key with id "${keyId}" in auth.apiKeys`);
    await app.ready();
    await app.toolnexus.ready;
    if (state.loadError) throw new Error(`tool sources could not be loaded: ${state.loadError}`);
    const documents = new ToolDocuments(app, state, new CatalogViews(state), app.toolnexus.policies, (s) =>
      new SecretScrubber(state.loaded.secrets).scrub(s),
    );
    return `${JSON.stringify(JSON.parse(documents.forCaller(caller)), null, 2)}\n`;
  } finally {
    await app.close();
  }
}
