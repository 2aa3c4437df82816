import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { userAuthOf, userAuths } from "../../config/upstream-auth.js";
import { ToolnexusError } from "../../core/errors.js";
import { Type } from "../http/typebox-lite.js";
import { ProblemResponse as problem } from "../http/schemas/common.js";
import { ownerKey } from "../auth/index.js";
import type { ServiceState } from "../service/service-state.js";
import { CredentialList, SecretBody } from "./schemas.js";
import type { UserCredentials } from "./user-credentials.js";
import type { CredentialStatus, Vault } from "./vault.js";

/** What the `/me/credentials` routes need. */
export interface CredentialRouteDeps {
  state: ServiceState;
  vault: Vault;
  users: UserCredentials;
}

const SourceParams = Type.Object({ source: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * `/me/credentials`: the caller's own upstream connections. The list never holds a token or a
 * secret; PUT sets a user secret; DELETE forgets a connection and revokes its tokens upstream
 * (RFC 7009) where the authorization server offers it.
 */
export const credentialRoutes: FastifyPluginAsyncTypebox<CredentialRouteDeps> = async (app, { state, vault, users }) => {
  app.get(
    "/me/credentials",
    {
      schema: {
        operationId: "listCredentials",
        summary: "The caller's upstream connections (never a token)",
        tags: ["credentials"],
        response: { 200: CredentialList, "4xx": problem, "5xx": problem },
      },
    },
    async (request) => {
      const stored = await vault.list(ownerKey(request.caller));
      const configured = userAuths(state.loaded.config);
      const out: CredentialStatus[] = [...stored];
      for (const u of configured)
        if (!out.some((c) => c.source === u.source)) out.push({ source: u.source, mode: u.mode, status: "not-connected" });
      return { credentials: out.sort((a, b) => a.source.localeCompare(b.source)) };
    },
  );

  app.put(
    "/me/credentials/:source",
    {
      schema: {
        operationId: "setCredential",
        summary: "Set the caller's secret for a user-secret connection",
        tags: ["credentials"],
        params: SourceParams,
        body: SecretBody,
        response: { 204: { description: "Stored.", type: "null" }, "4xx": problem, "5xx": problem },
      },
    },
    async (request, reply) => {
      const { source } = request.params;
      const auth = userAuthOf(state.loaded.config, source);
      if (auth?.mode !== "user-secret") throw notSecret(source, auth?.mode);
      const { secret } = request.body;
      // A control character would let the secret inject a header (CR LF) or cut it short.
      // eslint-disable-next-line no-control-regex
      if (/[\u0000-\u001f\u007f]/.test(secret))
        throw new ToolnexusError("INVALID_REQUEST", "The secret holds a control character (a newline would inject a header)");
      await vault.put(ownerKey(request.caller), source, { mode: "user-secret", secret, connectedAt: Date.now() });
      request.log.info({ source }, "user secret stored");
      return reply.code(204).send();
    },
  );

  app.delete(
    "/me/credentials/:source",
    {
      schema: {
        operationId: "deleteCredential",
        summary: "Forget a connection (its tokens are revoked upstream where offered)",
        tags: ["credentials"],
        params: SourceParams,
        response: { 204: { description: "Forgotten.", type: "null" }, "4xx": problem, "5xx": problem },
      },
    },
    async (request, reply) => {
      const { source } = request.params;
      const gone = await vault.delete(ownerKey(request.caller), source);
      if (gone === undefined) throw new ToolnexusError("NOT_FOUND", `No stored credential for "${source}"`);
      const auth = userAuthOf(state.loaded.config, source);
      if (gone?.mode === "user-oauth" && auth?.mode === "user-oauth") {
        const client = users.client(auth);
        // Revocation is best effort: the entry is gone whatever the authorization server says.
        for (const [token, hint] of [
          [gone.refreshToken, "refresh_token"],
          [gone.accessToken, "access_token"],
        ] as const) {
          if (!token) continue;
          await client
            .revoke(token, hint, gone)
            .catch((err: Error) => request.log.warn({ source, err: err.message }, "upstream revocation failed"));
        }
      }
      request.log.info({ source }, "upstream credential forgotten");
      return reply.code(204).send();
    },
  );
};

function notSecret(source: string, mode: string | undefined): ToolnexusError {
  return mode === undefined
    ? new ToolnexusError("NOT_FOUND", `No source takes a per-user credential named "${source}"`)
    : new ToolnexusError("INVALID_REQUEST", `"${source}" is a ${mode} connection: the caller logs in instead of setting a secret`);
}
