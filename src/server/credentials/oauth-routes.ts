import { randomBytes } from "node:crypto";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { generateRandomCodeVerifier } from "oauth4webapi";
import { userAuthOf, userAuths } from "../../config/upstream-auth.js";
import { isToolnexusError, ToolnexusError } from "../../core/errors.js";
import { SEAL_PURPOSES } from "../../core/seal.js";
import type { UserOAuthAuth } from "../../core/upstream-auth.js";
import { ownerKey } from "../auth/index.js";
import { ProblemResponse as problem } from "../http/schemas/common.js";
import { Type } from "../http/typebox-lite.js";
import type { ServiceState } from "../service/service-state.js";
import { callbackUrlOf, CLIENT_METADATA_PATH, clientMetadataDocument } from "./client-metadata.js";
import { outcomePage, PAGE_HEADERS, signInPage } from "./pages.js";
import { ClientMetadata } from "./schemas.js";
import { LOGIN_LINK_TTL_MS, type LoginLink, type UserCredentials } from "./user-credentials.js";
import type { Vault } from "./vault.js";

/** What `/oauth/start` and `/oauth/callback` need. */
export interface OAuthRouteDeps {
  state: ServiceState;
  vault: Vault;
  users: UserCredentials;
}

/**
 * What the `state` sent to the authorization server seals: caller, connection, PKCE verifier,
 * nonce, and the client the login started with (absent from states sealed before it was kept).
 */
interface OAuthState {
  c: string;
  s: string;
  v: string;
  n: string;
  k?: string;
}

/** What the browser's cookie seals: the nonce of the login it started, and for whom. */
interface BrowserProof {
  n: string;
  c: string;
}

const COOKIE = "toolnexus_oauth";
const StartQuery = Type.Object({ state: Type.String({ minLength: 1, maxLength: 4096 }) });
const StartForm = Type.Object({
  state: Type.String({ minLength: 1, maxLength: 4096 }),
  credential: Type.String({ minLength: 1, maxLength: 16384 }),
});
const CallbackQuery = Type.Object({
  state: Type.Optional(Type.String({ maxLength: 4096 })),
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  error: Type.Optional(Type.String({ maxLength: 256 })),
});

/**
 * The login of a user-oauth connection in the caller's browser, and the gateway's own client
 * metadata (`GET /oauth/client-metadata.json`). `GET /oauth/start` opens the
 * sealed login link and asks the browser to sign in as that caller; `POST /oauth/start` checks
 * it is the same caller (a forwarded link completed by someone else stores nothing: 403),
 * sets a sealed HttpOnly cookie and redirects to the upstream's authorization server;
 * `GET /oauth/callback` takes the code only in the browser holding that cookie, once (a
 * replayed state is refused), exchanges it and stores the tokens for that caller.
 */
export const oauthRoutes: FastifyPluginAsyncTypebox<OAuthRouteDeps> = async (app, deps) => {
  const { state } = deps;
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: 65_536 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
  const config = { access: "public", traced: true } as const;

  app.get(
    CLIENT_METADATA_PATH,
    {
      config,
      schema: {
        operationId: "oauthClientMetadata",
        summary: "The gateway's OAuth Client ID Metadata Document, for the authorization servers of user-oauth upstreams",
        description:
          "Where an upstream's authorization server fetches Client ID Metadata Documents, the gateway's client id there is this document's URL. 404 without server.publicUrl or a user-oauth connection.",
        tags: ["credentials"],
        security: [],
        response: { 200: ClientMetadata, "4xx": problem, "5xx": problem },
      },
    },
    async (_request, reply) => {
      const { config: cfg } = state.loaded;
      const { publicUrl } = cfg.server;
      if (publicUrl === undefined || !userAuths(cfg).some((u) => u.mode === "user-oauth"))
        throw new ToolnexusError("NOT_FOUND", "No OAuth client metadata: it needs server.publicUrl and a user-oauth connection");
      // Authorization servers cache it this long; a reload that moves publicUrl is seen soon after.
      reply.header("cache-control", "public, max-age=300");
      return clientMetadataDocument(publicUrl);
    },
  );

  app.get("/oauth/start", { config, schema: { hide: true, querystring: StartQuery } }, async (request, reply) =>
    htmlErrors(reply, async () => {
      const link = state.sealer.open<LoginLink>(SEAL_PURPOSES.loginLink, request.query.state);
      oauthAuth(state, link.s);
      // Without auth every caller is the same anonymous one: there is nothing to prove.
      if (!state.auth.enabled) return redirectToServer(deps, request, reply, link);
      return reply.type("text/html; charset=utf-8").send(signInPage(link.s, request.query.state));
    }),
  );

  app.post("/oauth/start", { config, schema: { hide: true, body: StartForm } }, async (request, reply) =>
    htmlErrors(reply, async () => {
      const link = state.sealer.open<LoginLink>(SEAL_PURPOSES.loginLink, request.body.state);
      const caller = await state.auth.authenticate(request, request.body.credential);
      if (ownerKey(caller) !== link.c) {
        request.log.warn({ source: link.s }, "login link completed by another caller: refused");
        throw new ToolnexusError("FORBIDDEN", "This login link was started by another caller: nothing was stored");
      }
      return redirectToServer(deps, request, reply, link);
    }),
  );

  app.get("/oauth/callback", { config, schema: { hide: true, querystring: CallbackQuery } }, async (request, reply) =>
    htmlErrors(reply, async () => {
      const sealed = request.query.state ?? "";
      const st = state.sealer.open<OAuthState>(SEAL_PURPOSES.oauthState, sealed);
      const proof = browserProof(deps, request);
      if (!proof || proof.n !== st.n || proof.c !== st.c) {
        request.log.warn({ source: st.s }, "login callback in a browser that did not start it: refused");
        throw new ToolnexusError("FORBIDDEN", "This browser did not start this login: nothing was stored");
      }
      if (!(await deps.vault.store.claimOnce(st.n, LOGIN_LINK_TTL_MS)))
        throw new ToolnexusError("INVALID_STATE", "This login was already completed; start a new one");
      const auth = oauthAuth(state, st.s);
      const params = new URLSearchParams(request.query as Record<string, string>);
      const tokens = await deps.users.client(auth).finish(params, sealed, callbackUrl(state), st.v, st.k);
      await deps.vault.put(st.c, st.s, { mode: "user-oauth", ...tokens, connectedAt: Date.now() });
      request.log.info({ source: st.s }, "upstream connected");
      reply.header("set-cookie", cookie(request, "", 0));
      return reply
        .type("text/html; charset=utf-8")
        .send(outcomePage(`Connected ${st.s}`, "Connected. You can close this window and retry the call."));
    }),
  );
};

/** Starts the login at the authorization server: a fresh PKCE verifier and nonce, the browser's cookie, a redirect. */
async function redirectToServer(deps: OAuthRouteDeps, request: FastifyRequest, reply: FastifyReply, link: LoginLink) {
  const { state } = deps;
  const auth = oauthAuth(state, link.s);
  const client = deps.users.client(auth);
  const st: OAuthState = { c: link.c, s: link.s, v: generateRandomCodeVerifier(), n: randomBytes(16).toString("base64url") };
  // The client is known once the authorization server is: resolved first, sealed with the rest.
  st.k = await client.clientId(callbackUrl(state));
  const sealed = state.sealer.seal(SEAL_PURPOSES.oauthState, st, LOGIN_LINK_TTL_MS);
  const start = await client.start(callbackUrl(state), sealed, st.v);
  const proof: BrowserProof = { n: st.n, c: st.c };
  reply.header(
    "set-cookie",
    cookie(request, state.sealer.seal(SEAL_PURPOSES.oauthBrowser, proof, LOGIN_LINK_TTL_MS), LOGIN_LINK_TTL_MS / 1000),
  );
  return reply.code(303).header("location", start.url).send();
}

function browserProof(deps: OAuthRouteDeps, request: FastifyRequest): BrowserProof | undefined {
  const raw = request.headers.cookie ?? "";
  const value = raw
    .split(";")
    .map((c) => c.trim())
    .find((c) => c.startsWith(`${COOKIE}=`))
    ?.slice(COOKIE.length + 1);
  if (!value) return undefined;
  try {
    return deps.state.sealer.open<BrowserProof>(SEAL_PURPOSES.oauthBrowser, value);
  } catch {
    return undefined;
  }
}

/** The cookie of a login in progress: sent back only to /oauth, and on the authorization server's top-level redirect (Lax). */
function cookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  const secure = request.protocol === "https" ? "; Secure" : "";
  return `${COOKIE}=${value}; Path=/oauth; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

function oauthAuth(state: ServiceState, source: string): UserOAuthAuth {
  const auth = userAuthOf(state.loaded.config, source);
  if (auth?.mode !== "user-oauth") throw new ToolnexusError("NOT_FOUND", `No user-oauth connection named "${source}"`);
  return auth;
}

/** The redirect URI registered at the authorization server: server.publicUrl + /oauth/callback. */
function callbackUrl(state: ServiceState): string {
  return callbackUrlOf(state.loaded.config.server.publicUrl ?? "");
}

/** A failure as a page with the problem's status (the browser is a person, not a client). */
async function htmlErrors(reply: FastifyReply, fn: () => Promise<unknown>): Promise<unknown> {
  reply.headers(PAGE_HEADERS);
  try {
    return await fn();
  } catch (err) {
    const e = isToolnexusError(err) ? err : new ToolnexusError("INTERNAL", "The login failed");
    reply.header("set-cookie", `${COOKIE}=; Path=/oauth; Max-Age=0; HttpOnly; SameSite=Lax`);
    return reply.code(e.status).type("text/html; charset=utf-8").send(outcomePage("Not connected", e.message));
  }
}
