import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from "fastify";
import type { Bindings, ChildLoggerOptions } from "pino";

type Log = (...args: unknown[]) => void;
type Leveled = FastifyBaseLogger & { isLevelEnabled?(level: string): boolean };

/**
 * A request's logger that becomes pino's child logger (the request id bound) only when
 * something logs through it. A pino child per request serializes its bindings each time: ~4 k
 * instructions of a REST call, most of which write nothing but the call's own line, which
 * info-line.ts writes from the root logger and the request id
 * (bench/history/2026-12-06-execute-path.md). What goes through it is what the child would
 * have written, byte for byte.
 */
export class RequestLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    /** The logger the child is made of. */
    readonly root: FastifyBaseLogger,
    /** The request's bindings (`{ reqId }`). */
    readonly bindings: Bindings,
    /**
     * Every binding is a string of characters JSON writes as they are (`[\w.:-]`), so a line
     * quotes it without looking: a request id is (fastify-options.ts checks an incoming one,
     * request-id.ts makes the others of those characters).
     */
    readonly plain = false,
  ) {}

  /** The root logger while no child has been made: info-line.ts writes the request's line from it. */
  get unbound(): FastifyBaseLogger | undefined {
    return this.#child === undefined ? this.root : undefined;
  }

  /** pino's child of the root, made at the first use. */
  get made(): FastifyBaseLogger {
    return (this.#child ??= this.root.child(this.bindings));
  }

  /** The level: the root's, until a child exists. */
  get level(): string {
    return (this.#child ?? this.root).level;
  }

  set level(level: string) {
    this.made.level = level;
  }

  /** Whether a line of `level` would be written (pino's `isLevelEnabled`). */
  isLevelEnabled(level: string): boolean {
    return ((this.#child ?? this.root) as Leveled).isLevelEnabled?.(level) ?? true;
  }

  /** A child of the request's child. */
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made.child(bindings, options);
  }

  /** pino's `fatal`. */
  fatal(...args: unknown[]): void {
    (this.made.fatal as Log)(...args);
  }

  /** pino's `error`. */
  error(...args: unknown[]): void {
    (this.made.error as Log)(...args);
  }

  /** pino's `warn`. */
  warn(...args: unknown[]): void {
    (this.made.warn as Log)(...args);
  }

  /** pino's `info`. */
  info(...args: unknown[]): void {
    (this.made.info as Log)(...args);
  }

  /** pino's `debug`. */
  debug(...args: unknown[]): void {
    (this.made.debug as Log)(...args);
  }

  /** pino's `trace`. */
  trace(...args: unknown[]): void {
    (this.made.trace as Log)(...args);
  }

  /** pino's `silent`: writes nothing. */
  silent(): void {}
}

/**
 * Gives a request and its reply their logger: the service's Fastify has no logger of its own
 * (fastify-options.ts), so Fastify gives every request a silent one. Called by the service's
 * onRequest hook, and for what fails before it: the router's errors, and an error of a hook
 * that runs before it (the error handler).
 */
export function bindRequestLogger(request: FastifyRequest, reply: FastifyReply, root: FastifyBaseLogger): void {
  request.log = reply.log = new RequestLogger(root, { reqId: request.id }, true) as unknown as FastifyBaseLogger;
}
