import type { ToolnexusConfig } from "../../config/schema/index.js";
import { exposedCommandBuiltins } from "../../sources/builtins/names.js";

/** Why `serve` must refuse to start for the shell built-ins' protection (`builtins.sandbox`, `runAs`), or undefined. */
export { protectionRefusal } from "../../sources/builtins/shell/protection-check.js";

/** True when the config authenticates callers (API keys or JWT). */
function hasAuth(config: ToolnexusConfig): boolean {
  return (config.auth?.apiKeys.length ?? 0) > 0 || config.auth?.jwt !== undefined;
}

/**
 * Why `serve` must refuse to start, or undefined. Secure by default: command and file
 * built-ins need API keys unless the operator says `server.insecure: true` (or --insecure).
 */
export function refusalReason(config: ToolnexusConfig, insecureFlag = false): string | undefined {
  // The same rule the builtins source uses to decide what it exposes.
  const risky = exposedCommandBuiltins(config);
  if (risky.length === 0 || hasAuth(config) || config.server.insecure || insecureFlag) return undefined;
  return (
    `refusing to start: the built-ins ${risky.join(", ")} run commands or write files, and no auth (apiKeys or jwt) is configured. ` +
    "Configure auth.apiKeys, disable those tools under builtins.tools, or set server.insecure: true (--insecure) if this host is private."
  );
}

/** A warning for an open service on a non-loopback address, or undefined. */
export function exposureWarning(config: ToolnexusConfig, host: string): string | undefined {
  if (hasAuth(config) || isLoopback(host)) return undefined;
  return `no auth (apiKeys or jwt) configured and listening on ${host}: anyone who can reach this address can list and run every tool`;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

/**
 * The one line `serve` prints when it cannot listen: the address, and what the operating
 * system's code means, so an operator fixes it without reading a stack trace.
 */
export function listenFailure(err: unknown, host: string, port: number): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  const address = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  const why: Record<string, string> = {
    EADDRINUSE: "the address is already in use (another process listens there: stop it or pass --port)",
    EACCES: "permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE: pass --port)",
    EADDRNOTAVAIL: "no network interface of this machine has that address (pass --host)",
    ENOTFOUND: "the host name does not resolve (pass --host)",
  };
  const reason = typeof code === "string" && why[code] ? `${why[code]} [${code}]` : ((err as Error | undefined)?.message ?? String(err));
  return `error: cannot listen on ${address}: ${reason}`;
}
