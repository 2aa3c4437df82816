import { buildServer } from "./build-server.js";

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
