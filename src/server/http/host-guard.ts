import { isIP } from "node:net";
import { ToolnexusError } from "../../core/errors.js";

/** The names a loopback deployment answers to by default (any port). */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** What the DNS-rebinding guard reads of `server:`. */
export interface HostGuardConfig {
  allowedHosts?: string[];
  allowedOrigins?: string[];
}

interface Policy {
  /** Host names (any port) and host:port pairs allowed as Host; undefined: any. */
  hosts?: Set<string>;
  /** Origins allowed in a present Origin header; undefined: any. */
  origins?: Set<string>;
  /** Loopback default: an origin whose host is a loopback name (any scheme and port). */
  loopbackOrigins: boolean;
  /** Host headers found allowed, as sent (at most SEEN_HOSTS): a client sends the same one on every request. */
  allowedSeen: Set<string>;
  /** The last Host header found allowed, as sent. */
  lastAllowed?: string;
}

// Bounds the allowed Host headers remembered per config: any port of an allowed name is allowed,
// so a client could send endless variants; past the bound they are simply checked each time.
const SEEN_HOSTS = 64;

/**
 * The DNS-rebinding guard of every route: a web page the developer visits may resolve its
 * own name to 127.0.0.1 and call the service from the browser; its requests carry that name
 * as Host and the page's Origin. Bound to a loopback address, only loopback names are
 * allowed as Host and only loopback origins as Origin, unless `server.allowedHosts` /
 * `server.allowedOrigins` say otherwise; bound elsewhere, only what those lists name is checked.
 */
export class HostGuard {
  private cached?: { config: HostGuardConfig; policy: Policy };

  /** `boundTo` gives the address the service listens on (read per request: it is known after listen). */
  constructor(private readonly boundTo: () => string) {}

  /** The 403 FORBIDDEN_HOST for this request's Host and Origin under `config`, or undefined. */
  check(config: HostGuardConfig, host: string | undefined, origin: string | undefined): ToolnexusError | undefined {
    const policy = this.policyOf(config);
    // A Host allowed before is allowed again: no lower-casing and name parsing on every request.
    // The last one is compared first: a new header's text is hashed for a lookup, and most
    // requests carry the Host of the one before.
    if (policy.hosts && host !== undefined && host !== policy.lastAllowed) {
      if (!policy.allowedSeen.has(host)) {
        if (!hostAllowed(policy.hosts, host.toLowerCase())) {
          return new ToolnexusError("FORBIDDEN_HOST", "This Host is not allowed here (server.allowedHosts)");
        }
        if (policy.allowedSeen.size < SEEN_HOSTS) policy.allowedSeen.add(host);
      }
      policy.lastAllowed = host;
    }
    if (origin !== undefined && !originAllowed(policy, origin.toLowerCase())) {
      return new ToolnexusError("FORBIDDEN_HOST", "This Origin is not allowed here (server.allowedOrigins)");
    }
    return undefined;
  }

  private policyOf(config: HostGuardConfig): Policy {
    if (this.cached?.config === config) return this.cached.policy;
    const loopback = isLoopback(this.boundTo());
    const lower = (list: string[]) => new Set(list.map((s) => s.toLowerCase().replace(/\/+$/, "")));
    const policy: Policy = {
      hosts: config.allowedHosts ? lower(config.allowedHosts) : loopback ? new Set(LOOPBACK_NAMES) : undefined,
      origins: config.allowedOrigins ? lower(config.allowedOrigins) : undefined,
      loopbackOrigins: !config.allowedOrigins && loopback,
      allowedSeen: new Set(),
    };
    this.cached = { config, policy };
    return policy;
  }
}

function hostAllowed(hosts: Set<string>, host: string): boolean {
  return hosts.has(host) || hosts.has(nameOf(host));
}

function originAllowed(policy: Policy, origin: string): boolean {
  if (policy.origins) return policy.origins.has(origin);
  if (!policy.loopbackOrigins) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_NAMES.includes(url.hostname);
  } catch {
    return false; // "null" and other opaque origins
  }
}

// "example.com:8080" → "example.com"; "[::1]:8080" → "[::1]".
function nameOf(host: string): string {
  const m = /^(\[[^\]]*\]|[^:]*)(?::\d*)?$/.exec(host);
  return m?.[1] ?? host;
}

// True for an address (or name) only this machine can reach.
function isLoopback(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, "").toLowerCase();
  if (a === "localhost" || a === "::1") return true;
  const v4 = a.startsWith("::ffff:") ? a.slice(7) : a;
  return isIP(v4) === 4 && v4.startsWith("127.");
}
