import { ToolnexusError } from "../../core/errors.js";
import type { Logger, Tool, ToolResult, UpstreamCredential } from "../../core/types.js";
import { isUserAuth, type TokenExchangeAuth, type UpstreamAuth, type UserAuth } from "../../core/upstream-auth.js";
import type * as TokenExchange from "../../net/token-exchange.js";
import type { Caller } from "../auth/index.js";
import { scrubDeep } from "../observability/scrub-deep.js";

const PASSTHROUGH: UpstreamAuth = { mode: "passthrough" };

// The exchanger (oauth4webapi and jose, ~50 modules) loads on the first exchange, not at start-up.
type ExchangeModule = typeof TokenExchange;
let exchangeModule: ExchangeModule | undefined;
let loadingExchange: Promise<ExchangeModule> | undefined;
function loadExchange(): Promise<ExchangeModule> {
  loadingExchange ??= import("../../net/token-exchange.js").then((m) => (exchangeModule = m));
  return loadingExchange;
}

/** A call that cannot run before its caller connects the upstream: the pending that says how. */
export interface LoginRequired {
  login: ToolResult;
}

/**
 * Each caller's own upstream credential (user-secret, user-oauth), from the vault: the
 * credentials folder implements it and hands it to the pipeline, which knows nothing of vaults.
 */
export interface UserCredentialResolver {
  /** The caller's credential for `auth`'s connection (refreshed when due), or the login it must do first. */
  resolve(auth: UserAuth, caller: Caller, log: Logger): Promise<UpstreamCredential | LoginRequired>;
  /** The upstream refused the credential (HTTP 401): it is forgotten, and the caller connects again. */
  refused(auth: UserAuth, caller: Caller, log: Logger): Promise<LoginRequired>;
}

/** True when a call's outcome says the upstream refused the caller's own credential (HTTP 401). */
function refusedCredential(outcome: { result?: ToolResult; error?: unknown }): boolean {
  if (outcome.error !== undefined) return outcome.error instanceof ToolnexusError && outcome.error.code === "UPSTREAM_AUTH_FAILED";
  return outcome.result?.isError === true && outcome.result.metadata?.status === 401;
}

/**
 * Which bearer a call sends upstream (a tool's `upstreamAuth`): none for a tool that does not
 * forward, or for an API key or anonymous caller (a gateway credential never leaves; the
 * source's configured credentials apply); the JWT caller's own token (passthrough); or a
 * token exchanged for the upstream (exchange). One exchanger, with its cache, per exchange
 * config: a reload that keeps a source keeps its cache.
 */
export class UpstreamCredentials {
  private readonly exchangers = new WeakMap<TokenExchangeAuth, TokenExchange.TokenExchanger>();
  /** Set by the credentials folder; without it a per-caller mode is refused. */
  user?: UserCredentialResolver;

  constructor(
    /** auth.jwt.issuer of the config in force, where token endpoints are discovered. */
    private readonly issuer: () => string | undefined,
  ) {}

  /**
   * The bearer for one call: undefined, a string when known at once (passthrough, a cached
   * exchange), or a promise of an exchange. UPSTREAM_AUTH_FAILED for a JWT caller whose token
   * is gone (an execution that outlived it): acting as the gateway instead would be a fallback.
   */
  bearer(tool: Tool, caller: Caller, log: Logger): UpstreamCredential | Promise<UpstreamCredential | LoginRequired> | undefined {
    const mode = tool.upstreamAuth ?? (tool.forwardAuth === true ? PASSTHROUGH : undefined);
    if (isUserAuth(mode)) {
      if (!this.user)
        throw new ToolnexusError("UPSTREAM_AUTH_FAILED", `"${tool.name}" needs the caller's own credential, and no vault is running`);
      return this.user.resolve(mode, caller, log);
    }
    if (mode === undefined || caller.kind !== "jwt") return undefined;
    const subject = caller.bearer;
    if (!subject) {
      throw new ToolnexusError(
        "UPSTREAM_AUTH_FAILED",
        `"${tool.name}" acts for the caller upstream, and the caller's token is no longer available (it expired before the call ran)`,
      );
    }
    if (mode.mode === "passthrough") return { bearer: subject };
    if (!exchangeModule) return loadExchange().then((m) => asCredential(this.exchanged(m, mode, subject, log)));
    return asCredential(this.exchanged(exchangeModule, mode, subject, log));
  }

  /**
   * Runs a call that carries the caller's own stored credential (user-secret, user-oauth): when
   * the upstream refuses it (HTTP 401) it is forgotten and the caller gets the login instead of
   * the failure, so a revoked grant leads to a new login, never an error loop. Other calls run as they are.
   */
  async checked(tool: Tool, caller: Caller, log: Logger, run: () => Promise<ToolResult>): Promise<ToolResult> {
    const auth = tool.upstreamAuth;
    if (!isUserAuth(auth) || !this.user) return run();
    const user = this.user;
    let outcome: { result?: ToolResult; error?: unknown };
    try {
      outcome = { result: await run() };
    } catch (error) {
      outcome = { error };
    }
    if (refusedCredential(outcome)) {
      log.info({ source: auth.source }, "upstream refused the caller's credential; a new login is needed");
      return (await user.refused(auth, caller, log)).login;
    }
    if (outcome.error !== undefined) throw outcome.error;
    return outcome.result as ToolResult;
  }

  private exchanged(m: ExchangeModule, cfg: TokenExchangeAuth, subject: string, log: Logger): string | Promise<string> {
    let e = this.exchangers.get(cfg);
    if (!e) {
      const issuer = this.issuer();
      e = new m.TokenExchanger(cfg, issuer === undefined ? {} : { issuer });
      this.exchangers.set(cfg, e);
    }
    return e.cached(subject) ?? e.token(subject, log);
  }
}

function asCredential(bearer: string): UpstreamCredential;
function asCredential(bearer: string | Promise<string>): UpstreamCredential | Promise<UpstreamCredential>;
function asCredential(bearer: string | Promise<string>): UpstreamCredential | Promise<UpstreamCredential> {
  return typeof bearer === "string" ? { bearer } : bearer.then((b) => ({ bearer: b }));
}

const REDACTED = "[redacted]";

/**
 * `result` without `bearer` in it: an upstream that echoes the request (an error page, a debug
 * endpoint) must not hand the caller a token exchanged for it, nor write it to a log or Redis.
 */
export function withoutBearer(result: ToolResult, bearer: string): ToolResult {
  const inMetadata = result.metadata !== undefined && JSON.stringify(result.metadata).includes(bearer);
  if (!result.output.includes(bearer) && !inMetadata) return result;
  const scrub = (text: string) => text.split(bearer).join(REDACTED);
  return { ...result, output: scrub(result.output), ...(inMetadata ? { metadata: scrubDeep(result.metadata, scrub) } : {}) };
}

/** An error of a call whose message carries `bearer`, with the token replaced (and the stack, which repeats it, dropped). */
export function errorWithoutBearer(err: unknown, bearer: string): unknown {
  if (!(err instanceof Error) || !err.message.includes(bearer)) return err;
  const message = err.message.split(bearer).join(REDACTED);
  if (!(err instanceof ToolnexusError)) return new Error(message);
  return new ToolnexusError(err.code, message, {
    ...(err.errors ? { errors: err.errors } : {}),
    ...(err.headers ? { headers: err.headers } : {}),
  });
}
