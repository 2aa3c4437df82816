import type { FastifyInstance } from "fastify";
import { ToolnexusError } from "../../core/errors.js";
import type { AuthState } from "./hook.js";
import { bearerChallenge, PRM_PREFIX, protectedResourceMetadata, resourceBase } from "./protected-resource.js";

/**
 * The OAuth protected-resource metadata (RFC 9728) of the REST API and of the MCP endpoint,
 * while `auth.jwt` is configured (404 otherwise: a reload may add or drop it), and the
 * challenge on every 401 and 403 that points to it. Public: a client reads it before it has
 * a token.
 */
export async function registerProtectedResource(app: FastifyInstance, { state }: { state: AuthState }): Promise<void> {
  // The MCP path of the config the service started with: a reload does not move routes.
  for (const path of ["", state.loaded.config.server.mcp.path]) {
    app.get(`${PRM_PREFIX}${path}`, { config: { access: "public", traced: true }, schema: { hide: true } }, async (request, reply) => {
      const { config } = state.loaded;
      if (!config.auth?.jwt) throw new ToolnexusError("NOT_FOUND", "No OAuth protected resource is configured (auth.jwt)");
      reply.header("cache-control", "public, max-age=300");
      return protectedResourceMetadata(config, resourceBase(config, request), path);
    });
  }
  app.addHook("onSend", (request, reply, payload, done) => {
    const { config } = state.loaded;
    if ((reply.statusCode === 401 || reply.statusCode === 403) && config.auth?.jwt) {
      const existing = reply.getHeader("www-authenticate");
      if (typeof existing === "string" && /^bearer\b/i.test(existing))
        reply.header("www-authenticate", bearerChallenge(config, request, existing));
    }
    done(null, payload);
  });
}
