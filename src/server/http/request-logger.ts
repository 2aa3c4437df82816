import type { FastifyBaseLogger } from "fastify";
import type { Bindings, ChildLoggerOptions } from "pino";

type Log = (...args: unknown[]) => void;
type Leveled = FastifyBaseLogger & { isLevelEnabled?(level: string): boolean };

/**
 * The logging methods of a logger that writes through another: pino's, called on the logger
 * `writer` gives (made on first use by a RequestLogger).
 */
abstract class WritesThrough {
  /** The logger the lines go through. */
  protected abstract get writer(): FastifyBaseLogger;

  /** pino's `fatal`. */
  fatal(...args: unknown[]): void {
    (this.writer.fatal as Log)(...args);
  }

  /** pino's `error`. */
  error(...args: unknown[]): void {
    (this.writer.error as Log)(...args);
  }

  /** pino's `warn`. */
  warn(...args: unknown[]): void {
    (this.writer.warn as Log)(...args);
  }

  /** pino's `info`. */
  info(...args: unknown[]): void {
    (this.writer.info as Log)(...args);
  }

  /** pino's `debug`. */
  debug(...args: unknown[]): void {
    (this.writer.debug as Log)(...args);
  }

  /** pino's `trace`. */
  trace(...args: unknown[]): void {
    (this.writer.trace as Log)(...args);
  }

  /** pino's `silent`: writes nothing. */
  silent(): void {}
}

/**
 * A request's logger that becomes pino's child logger (the request id bound) only when
 * something logs through it. Fastify makes that child on every request, and pino serializes its
 * bindings each time: ~4 k instructions of a REST call, most of which write nothing but the
 * call's own line, which info-line.ts writes from the root logger and the request id
 * (bench/history/2026-12-06-execute-path.md). What goes through it is what the child would
 * have written, byte for byte.
 */
export class RequestLogger extends WritesThrough {
  #child: FastifyBaseLogger | undefined;

  constructor(
    /** The logger the child is made of. */
    readonly root: FastifyBaseLogger,
    /** The request's bindings (Fastify's `{ reqId }`). */
    readonly bindings: Bindings,
  ) {
    super();
  }

  /** The request's child: lines go through it. */
  protected get writer(): FastifyBaseLogger {
    return this.made;
  }

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
}

/**
 * The logger the service gives Fastify: pino's logger as it is, but for `child`, which is what
 * Fastify calls for every request (with `{ reqId }`): a RequestLogger, or pino's child at once
 * (itself so wrapped) when the child has a level or serializers of its own (a route's
 * `logLevel`, Fastify's own serializers at start), which only pino's child knows how to apply.
 * Fastify's `childLoggerFactory` option did this before, but a factory of one's own makes
 * Fastify check seven methods of every request's logger: ~1.8 k instructions a request
 * (bench/history/2026-12-06-execute-path.md).
 */
export class FastifyLogger extends WritesThrough {
  constructor(
    /** The pino logger this one writes through. */
    readonly pino: FastifyBaseLogger,
  ) {
    super();
  }

  /** pino's logger: lines go through it. */
  protected get writer(): FastifyBaseLogger {
    return this.pino;
  }

  /** pino's level. */
  get level(): string {
    return this.pino.level;
  }

  set level(level: string) {
    this.pino.level = level;
  }

  /** A request's logger for `{ reqId }`-like bindings, else pino's child, wrapped. */
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    if (options?.level === undefined && options?.serializers === undefined) {
      return new RequestLogger(this.pino, bindings) as unknown as FastifyBaseLogger;
    }
    return new FastifyLogger(this.pino.child(bindings, options)) as unknown as FastifyBaseLogger;
  }

  /** Whether a line of `level` would be written (pino's `isLevelEnabled`). */
  isLevelEnabled(level: string): boolean {
    return (this.pino as Leveled).isLevelEnabled?.(level) ?? true;
  }
}
