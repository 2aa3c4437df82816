import { randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ToolnexusError } from "../../core/errors.js";
import type { Sealer } from "../../core/seal.js";

/**
 * The operator console's session: the credential an operator entered once (an API key or a
 * bearer token), sealed (core/seal.ts, a purpose of its own) into an HttpOnly, SameSite=Strict
 * cookie. Only routes that declare `session: true` read it (the console's, `/status`,
 * `/admin/pins`); every other route ignores it. The credential itself is kept, not the caller it named, so every
 * request judges it again against the keys and issuer in service now: a key removed from the
 * config, or a token past its expiry, signs the session out. A state-changing request also
 * needs the session's CSRF token in a header and an Origin of this very host.
 */

/** The seal purpose of a console session: a token sealed for anything else never opens as one. */
export const SESSION_PURPOSE = "toolnexus console session";
/** The cookie's name. */
export const SESSION_COOKIE = "toolnexus_console";
/** The header a state-changing console request carries its CSRF token in. */
const CSRF_HEADER = "x-csrf-token";
/** How long a session lasts (a working night), unless its credential ends first. */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;

/** What the cookie seals: the credential and the session's CSRF token. */
export interface SessionValue {
  c: string;
  x: string;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Seals, reads and checks console sessions with the service's sealer in service now. */
export class ConsoleSessions {
  constructor(private readonly sealer: () => Sealer) {}

  /** A new session for `credential`: the cookie to set and its CSRF token. */
  issue(request: FastifyRequest, reply: FastifyReply, credential: string): SessionValue {
    const value: SessionValue = { c: credential, x: randomBytes(24).toString("base64url") };
    const sealed = this.sealer().seal(SESSION_PURPOSE, value, SESSION_TTL_MS);
    reply.header("set-cookie", cookie(request, sealed, SESSION_TTL_MS / 1000));
    return value;
  }

  /** Ends the session on the browser's side (the cookie is cleared). */
  clear(request: FastifyRequest, reply: FastifyReply): void {
    reply.header("set-cookie", cookie(request, "", 0));
  }

  /** True when the request carries a session cookie at all (valid or not). */
  present(request: FastifyRequest): boolean {
    return cookieOf(request) !== undefined;
  }

  /** The session the request carries: undefined without a cookie; UNAUTHORIZED when forged, altered or expired. */
  open(request: FastifyRequest): SessionValue | undefined {
    const sealed = cookieOf(request);
    if (sealed === undefined) return undefined;
    try {
      const v = this.sealer().open<SessionValue>(SESSION_PURPOSE, sealed);
      if (typeof v?.c === "string" && typeof v.x === "string") return v;
    } catch {
      // One answer for every cause, as the sealer gives.
    }
    throw new ToolnexusError("UNAUTHORIZED", "The console session is not valid or has expired: sign in again", {
      headers: { "www-authenticate": 'Bearer realm="toolnexus"' },
    });
  }

  /**
   * The credential of the request's session, for the auth hook (auth/hook.ts): a
   * state-changing request is refused unless it carries the session's CSRF token and comes
   * from this host's own origin.
   */
  readonly credential = (request: FastifyRequest): string | undefined => {
    const session = this.open(request);
    if (!session) return undefined;
    if (!SAFE_METHODS.has(request.method)) {
      const token = request.headers[CSRF_HEADER];
      if (typeof token !== "string" || !same(token, session.x) || !sameOrigin(request)) {
        throw new ToolnexusError(
          "FORBIDDEN",
          `A console action needs its page's ${CSRF_HEADER} header and an Origin of this host; this request is refused as cross-site`,
        );
      }
    }
    return session.c;
  };
}

/** True when the request's Origin is this host's own (a browser sends it on every POST). */
export function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  const host = request.headers.host;
  if (typeof origin !== "string" || !host) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && url.host === host.toLowerCase();
  } catch {
    return false;
  }
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

// Secure when the page was reached over https (directly, or through a proxy Fastify trusts).
function cookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  const secure = request.protocol === "https" ? "; Secure" : "";
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure}`;
}
