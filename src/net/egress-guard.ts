import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { isIP } from "node:net";
import { Agent, buildConnector, fetch as undiciFetch, type Dispatcher } from "undici";
import type { EgressConfig } from "../config/schema/server.js";
import { EgressPolicy, normalizeHost, type EgressDecision } from "./egress-policy.js";

/** Thrown (as the connect error, or its `cause`) when the guard refuses a destination. */
export class EgressRefusedError extends Error {
  readonly code = "EGRESS_REFUSED";
  constructor(
    readonly host: string,
    readonly address: string | undefined,
    readonly reason: string,
  ) {
    super(`egress to ${host}${address && address !== host ? ` (${address})` : ""} refused: ${reason}`);
    this.name = "EgressRefusedError";
  }
}

/** The EgressRefusedError somewhere in `err`'s cause chain (fetch wraps it in "fetch failed"). */
export function findEgressRefusal(err: unknown): EgressRefusedError | undefined {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof EgressRefusedError) return e;
  }
  return undefined;
}

/** Agent options for {@link EgressGuard.dispatcher}; `connect` carries TLS/socket options only. */
export type GuardedAgentOptions = Omit<Agent.Options, "connect"> & {
  connect?: Omit<buildConnector.BuildOptions, "lookup">;
};

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The one gate every outbound request of a source passes. The check runs in the
 * socket's own DNS lookup, so the address that was checked is the address connected to: a
 * host cannot resolve to something harmless for the check and to 169.254.169.254 for the
 * connect. IP-literal hosts never reach a lookup and are checked in the connector instead.
 */
export class EgressGuard {
  readonly policy: EgressPolicy;
  private shared?: Agent;

  /** Throws when an allow/deny entry cannot be parsed (the message names it). */
  constructor(config: EgressConfig = {}) {
    this.policy = new EgressPolicy(config);
  }

  /** The pure decision for `host` resolved to `address`. */
  decide(host: string, address: string): EgressDecision {
    return this.policy.decide(host, address);
  }

  /** A `net.connect` lookup that resolves, checks every address, and hands on only checked ones. */
  readonly lookup = (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const early = this.policy.decideHost(hostname);
    if (early) {
      callback(new EgressRefusedError(normalizeHost(hostname), undefined, early.reason ?? "refused"), "", 0);
      return;
    }
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      // Any refused address refuses the host: a name that also points at metadata is not trusted.
      for (const a of addresses) {
        const d = this.decide(hostname, a.address);
        if (!d.allowed) return callback(new EgressRefusedError(normalizeHost(hostname), a.address, d.reason ?? "refused"), "", 0);
      }
      const first = addresses[0];
      if (options.all) return callback(null, addresses);
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "", 0);
      callback(null, first.address, first.family);
    });
  };

  /** A new pooled undici Agent (one connection pool per origin) whose every connect is guarded. Close it when done. */
  dispatcher(opts: GuardedAgentOptions = {}): Dispatcher {
    const { connect, ...rest } = opts;
    const base = buildConnector({ ...connect, lookup: this.lookup } as buildConnector.BuildOptions);
    const guarded: buildConnector.connector = (o, cb) => {
      const host = normalizeHost(o.hostname);
      if (isIP(host)) {
        const d = this.decide(host, host);
        if (!d.allowed) return cb(new EgressRefusedError(host, host, d.reason ?? "refused"), null);
      }
      base(o, cb);
    };
    return new Agent({ ...rest, connect: guarded });
  }

  /** undici's fetch through a shared guarded dispatcher (for SDKs that take a fetch implementation). */
  readonly fetch = ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
    undiciFetch(input, { ...init, dispatcher: init?.dispatcher ?? this.sharedDispatcher() })) as typeof undiciFetch;

  /** The guard's own lazily created dispatcher, used by {@link fetch}; closed by {@link close}. */
  sharedDispatcher(): Dispatcher {
    this.shared ??= this.dispatcher() as Agent;
    return this.shared;
  }

  /** Closes the shared dispatcher (dispatchers from {@link dispatcher} are their owner's to close). */
  async close(): Promise<void> {
    const a = this.shared;
    this.shared = undefined;
    await a?.close();
  }

  /**
   * Closes the shared dispatcher without waiting for requests still in flight: for an owner
   * that is done with every exchange, where a request to a server that never answers would
   * otherwise hold the close forever.
   */
  async destroy(): Promise<void> {
    const a = this.shared;
    this.shared = undefined;
    await a?.destroy();
  }
}
