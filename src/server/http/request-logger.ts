import type { FastifyBaseLogger } from "fastify";
import type { Bindings, ChildLoggerOptions } from "pino";

type Log = (...args: unknown[]) => void;
type Leveled = FastifyBaseLogger & { isLevelEnabled?(level: string): boolean };

/**
 * A request's logger that becomes pino's child logger (the request id bound) only when
 * something logs through it. Fastify makes that child on every request, and pino serializes its
 * bindings each time: ~4 k instructions of a REST call, most of which write nothing but the
 * call's own line, which info-line.ts writes from the root logger and the request id
 * (bench/history/2026-12-06-execute-path.md). What goes through it is what the child would
 * have written, byte for byte.
 */
export class RequestLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    /** The logger the child is made of. */
    readonly root: FastifyBaseLogger,
    /** The request's bindings (Fastify's `{ reqId }`). */
    readonly bindings: Bindings,
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

  /** pino's `fatal`, through the child. */
  fatal(...args: unknown[]): void {
    (this.made.fatal as Log)(...args);
  }

  /** pino's `error`, through the child. */
  error(...args: unknown[]): void {
    (this.made.error as Log)(...args);
  }

  /** pino's `warn`, through the child. */
  warn(...args: unknown[]): void {
    (this.made.warn as Log)(...args);
  }

  /** pino's `info`, through the child. */
  info(...args: unknown[]): void {
    (this.made.info as Log)(...args);
  }

  /** pino's `debug`, through the child. */
  debug(...args: unknown[]): void {
    (this.made.debug as Log)(...args);
  }

  /** pino's `trace`, through the child. */
  trace(...args: unknown[]): void {
    (this.made.trace as Log)(...args);
  }

  /** pino's `silent`: writes nothing. */
  silent(): void {}

  /** A child of the request's child. */
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made.child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory`: a RequestLogger, or pino's child at once when the route has a
 * level or serializers of its own (only pino's child knows how to apply them).
 */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions): FastifyBaseLogger {
  if (opts.level !== undefined || opts.serializers !== undefined) return logger.child(bindings, opts);
  return new RequestLogger(logger, bindings) as unknown as FastifyBaseLogger;
}
