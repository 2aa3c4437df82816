import type { FastifyRequest } from "fastify";
import type { AuthConfig, ToolnexusConfig } from "../../config/schema/index.js";
import { ToolnexusError } from "../../core/errors.js";
import type { Logger } from "../../core/types.js";
import { ApiKeyAuth } from "./api-keys.js";
import { ANONYMOUS, type Caller } from "./caller.js";
import type { JWTPayload } from "jose";
import type { JwtVerifier } from "./jwt.js";
import { claimsOf, Policies } from "./policies.js";
import { expectedAudience } from "./protected-resource.js";

/**
 * The combined authenticator: API keys (`Authorization: Bearer <key>` or
 * `X-API-Key`) and, when `auth.jwt` is configured, bearer JWTs whose callers get the tools
 * of their matching `auth.policies`. A key match is synchronous (no promise on the hot path);
 * a JWT needs the JWKS and resolves later.
 */
export class Authenticator {
  private readonly keys: ApiKeyAuth;
  private readonly policies: Policies;
  private readonly groupsClaim: string;
  /** The caller of each payload in the verifier's token cache (gone with the payload). */
  private readonly callers = new WeakMap<JWTPayload, Caller>();

  /**
   * The authenticator of `auth`. jose (~50 modules) is imported only when `auth.jwt` is
   * configured; the verifier is built here, so a bad `jwksUri` fails the start-up or the
   * reload that brought it, as any other config error.
   */
  static async create(config: ToolnexusConfig, logger: Logger): Promise<Authenticator> {
    const auth = config.auth;
    const verifier = auth?.jwt
      ? new (await import("./jwt.js")).JwtVerifier({ ...auth.jwt, audience: expectedAudience(config) }, logger)
      : undefined;
    return new Authenticator(auth, config.bundles, verifier);
  }

  private constructor(
    auth: AuthConfig | undefined,
    bundles: ToolnexusConfig["bundles"],
    private readonly jwt?: JwtVerifier,
  ) {
    this.keys = new ApiKeyAuth(auth?.apiKeys ?? [], bundles);
    this.policies = new Policies(auth?.policies ?? [], bundles);
    this.groupsClaim = auth?.jwt?.groupsClaim ?? "groups";
  }

  /** True when any credential is configured: then every protected route needs a caller. */
  get enabled(): boolean {
    return this.keys.enabled || this.jwt !== undefined;
  }

  /** The caller a configured API key id stands for (`toolnexus openapi --key-id`), if there is one. */
  callerById(id: string): Caller | undefined {
    return this.keys.callerById(id);
  }

  /** True when the request presents a credential (valid or not): the portal then fetches with it. */
  presentsKey(request: FastifyRequest): boolean {
    const header = request.headers["x-api-key"];
    return (typeof header === "string" && header !== "") || bearerOf(request.headers.authorization) !== undefined;
  }

  /**
   * The caller of a request; throws (or rejects with) UNAUTHORIZED or AUTH_UNAVAILABLE.
   * `presented` is a credential the request carries elsewhere than its headers (the console's
   * session cookie), judged as a bearer credential against the keys and issuer in service now.
   */
  authenticate(request: FastifyRequest, presented?: string): Caller | Promise<Caller> {
    if (!this.enabled) return ANONYMOUS;
    // Authorization first, as the document's security alternatives allow either: a request
    // carrying both is judged by its bearer credential.
    const bearer = presented ?? bearerOf(request.headers.authorization);
    if (bearer === undefined) {
      const header = request.headers["x-api-key"];
      if (typeof header === "string" && header !== "") return this.keys.match(header) ?? fail("The API key is not valid");
      throw new ToolnexusError(
        "UNAUTHORIZED",
        `${this.jwt ? "A bearer token" : "An API key"} is required (Authorization: Bearer <${this.jwt ? "token" : "key"}>${this.keys.enabled ? " or X-API-Key" : ""})`,
        {
          headers: { "www-authenticate": 'Bearer realm="toolnexus"' },
        },
      );
    }
    const key = this.keys.enabled ? this.keys.match(bearer) : undefined;
    if (key) return key;
    if (!this.jwt) return fail("The API key is not valid");
    const cached = this.jwt.cached(bearer);
    if (cached) return this.callerOf(cached, bearer);
    return this.jwt.verify(bearer).then((payload) => this.callerOf(payload, bearer));
  }

  /**
   * The caller of a verified payload, built once per payload: the token cache hands back the
   * same payload object for the same token until it expires, so a client repeating its token
   * gets the same caller (claims, matching policies, view key) without rebuilding it per call.
   */
  private callerOf(payload: JWTPayload, bearer: string): Caller {
    let caller = this.callers.get(payload);
    if (!caller) {
      caller = this.policies.callerFor(claimsOf(payload, this.groupsClaim), bearer);
      this.callers.set(payload, caller);
    }
    return caller;
  }
}

function bearerOf(auth: string | undefined): string | undefined {
  if (!auth || auth.length < 7 || auth.slice(0, 7).toLowerCase() !== "bearer ") return undefined;
  return auth.slice(7).trim() || undefined;
}

function fail(detail: string): never {
  throw new ToolnexusError("UNAUTHORIZED", detail, { headers: { "www-authenticate": 'Bearer realm="toolnexus", error="invalid_token"' } });
}
