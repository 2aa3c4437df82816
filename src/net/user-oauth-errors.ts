import * as oauth from "oauth4webapi";
import { ToolnexusError } from "../core/errors.js";

/**
 * How a user-oauth exchange with an upstream's authorization server fails: always
 * UPSTREAM_AUTH_FAILED, with a reason fit for the caller (never a body or a token) and the
 * server's own error code where it gave one.
 */

/** An OAuth failure; `oauthError` is the server's error code (invalid_grant means: log in again). */
export class UserOAuthError extends ToolnexusError {
  constructor(
    message: string,
    readonly oauthError?: string,
  ) {
    super("UPSTREAM_AUTH_FAILED", message);
  }
}

/** The failure of a login, refresh or revocation, for `reason`. */
export function failed(reason: string, oauthError?: string): UserOAuthError {
  return new UserOAuthError(`The upstream login failed: ${reason}`, oauthError);
}

/** Why a request to the authorization server failed, in words fit for a caller: never a body or a token. */
export function reasonOf(err: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted) return `the authorization server did not answer within ${timeoutMs} ms`;
  if (err instanceof oauth.ResponseBodyError) return `the authorization server refused it (${err.error}, HTTP ${err.status})`;
  if (err instanceof oauth.AuthorizationResponseError) return `the authorization server answered ${err.error}`;
  if (err instanceof oauth.OperationProcessingError) {
    const status = (err.cause as { status?: unknown } | undefined)?.status;
    return typeof status === "number"
      ? `the authorization server answered HTTP ${status}`
      : "the authorization server's answer was not valid";
  }
  return "the authorization server is unreachable";
}
