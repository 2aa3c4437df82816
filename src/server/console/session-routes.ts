import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "../http/typebox-lite.js";
import { ToolnexusError } from "../../core/errors.js";
import { ProblemResponse as problem } from "../http/schemas/common.js";
import type { AuthState } from "../auth/hook.js";
import type { Caller } from "../auth/caller.js";
import { CONSOLE_CSP, consolePage, forbiddenPage, signInPage } from "./page.js";
import { CONSOLE_SCRIPT } from "./script.js";
import { SessionInfo, SignIn } from "./schemas.js";
import { sameOrigin, SESSION_TTL_MS, type ConsoleSessions } from "./session.js";
import { CONSOLE_STYLE } from "./style.js";

/** What the page and session routes need. */
export interface ConsolePageOptions {
  state: AuthState;
  sessions: ConsoleSessions;
}

const HARDENING = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};

/**
 * `GET /admin` (the console, its sign-in form, or 403), its script and stylesheet, and the
 * session: `POST /admin/session` signs in with an operator credential entered once,
 * `POST /admin/session/end` signs out. The page is public so that a browser without a
 * session gets the form; it shows the console only to an operator.
 */
export const consolePageRoutes: FastifyPluginAsyncTypebox<ConsolePageOptions> = async (app, { state, sessions }) => {
  app.get("/admin", { config: { access: "public", traced: true, session: true }, schema: { hide: true } }, async (request, reply) => {
    reply.headers(HARDENING).type("text/html; charset=utf-8");
    const caller = (request.caller as Caller | null) ?? (state.auth.enabled ? undefined : await state.auth.authenticate(request));
    if (!caller) {
      // A cookie that no longer opens a session (expired, forged, its key revoked): cleared.
      if (sessions.present(request)) sessions.clear(request, reply);
      return signInPage(sessions.present(request) ? "Your session ended (expired, or its key was revoked). Sign in again." : undefined);
    }
    if (!caller.operator) return reply.code(403).send(forbiddenPage());
    const session = safeOpen(sessions, request);
    return consolePage(caller.id, session?.x, session !== undefined);
  });

  app.get("/admin/console.js", { config: { access: "public", traced: false }, schema: { hide: true } }, async (_request, reply) =>
    reply.headers(HARDENING).type("text/javascript; charset=utf-8").send(CONSOLE_SCRIPT),
  );
  app.get("/admin/console.css", { config: { access: "public", traced: false }, schema: { hide: true } }, async (_request, reply) =>
    reply.headers(HARDENING).type("text/css; charset=utf-8").send(CONSOLE_STYLE),
  );

  app.post(
    "/admin/session",
    {
      config: { access: "public", traced: true },
      schema: {
        operationId: "consoleSignIn",
        summary: "Sign in to the operator console: an operator key or bearer token in, a sealed HttpOnly session cookie out",
        tags: ["admin"],
        security: [],
        body: SignIn,
        response: { 200: Type.Ref(SessionInfo), "4xx": problem, "5xx": problem },
      },
    },
    async (request, reply) => {
      refuseCrossSite(request);
      const caller = await state.auth.authenticate(request, request.body.credential);
      if (!caller.operator) throw new ToolnexusError("FORBIDDEN", "The console is for operator callers only");
      sessions.issue(request, reply, request.body.credential);
      reply.header("cache-control", "no-store");
      request.log.info({ caller: caller.id }, "console sign-in");
      return { caller: caller.id, expiresAt: new Date(Date.now() + SESSION_TTL_MS).toISOString() };
    },
  );

  app.post(
    "/admin/session/end",
    {
      config: { access: "public", traced: true },
      schema: {
        operationId: "consoleSignOut",
        summary: "Sign out of the operator console (the session cookie is cleared)",
        tags: ["admin"],
        security: [],
        response: { 204: { description: "Signed out.", type: "null" }, "4xx": problem },
      },
    },
    async (request, reply) => {
      refuseCrossSite(request);
      sessions.clear(request, reply);
      return reply.code(204).send();
    },
  );
};

// Sign-in and sign-out come from the console's own page: a request from elsewhere is refused.
function refuseCrossSite(request: Parameters<typeof sameOrigin>[0]): void {
  if (!sameOrigin(request)) {
    throw new ToolnexusError("FORBIDDEN", "Console sign-in and sign-out are accepted from the console's own page only (same Origin)");
  }
}

function safeOpen(sessions: ConsoleSessions, request: Parameters<typeof sameOrigin>[0]) {
  try {
    return sessions.open(request);
  } catch {
    return undefined;
  }
}
