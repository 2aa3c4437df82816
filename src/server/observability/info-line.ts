import { pino, stdTimeFunctions, symbols } from "pino";
import { RequestLogger } from "../http/request-logger.js";
import { jsonString } from "./json-text.js";

// pino's exported symbols (pino.symbols); msgPrefixSym is missing from its typings.
const sym = symbols as unknown as Record<string, symbol>;
const {
  chindingsSym,
  endSym,
  formattersSym,
  hooksSym,
  lsCacheSym,
  messageKeySym,
  mixinSym,
  msgPrefixSym,
  needsMetadataGsym,
  nestedKeySym,
  serializersSym,
  stringifiersSym,
  streamSym,
  timeSym,
  wildcardFirstSym,
} = sym as Record<string, symbol>;

/** What this module reads of a pino logger (by its exported symbols), absent on any other logger. */
type PinoInternals = Record<symbol, unknown> & { levels?: { values: Record<string, number> } };
type Stream = { write(line: string): unknown } & Record<symbol, unknown>;

/**
 * A line's fields already written as JSON object members (`,"key":value` each, in order), with
 * every key they may hold: pino's serializers and redaction are checked against the keys.
 */
export interface LineFields {
  readonly keys: readonly string[];
  readonly members: string;
}

/**
 * Writes one info line the way pino writes `log.info(fields, msg)`: the level, the time and the
 * logger's bindings as pino has them, then the fields' members and the message. The caller
 * writes the members (call-record.ts, from quoted strings it keeps), where pino escapes each key
 * and value in a loop of its own and concatenates them piece by piece: ~13 k instructions of
 * every tool call's line (bench/history/2026-12-06-execute-path.md). Returns false, having
 * written nothing, when `log` is not a pino logger this applies to (a mixin, hooks, a nested
 * key, a serializer or a redaction of one of the keys, a stream that wants metadata): log as
 * usual then.
 */
export function writeInfoLine(log: unknown, fields: LineFields, msg: string): boolean {
  // A request's logger with no child yet: the root's line with the request's bindings after
  // the root's, as pino's child would have them.
  let bound = "";
  let f: LineFormat | null;
  if (log instanceof RequestLogger) {
    const root = log.unbound;
    f = root ? formatOf(root) : null;
    if (root && (bound = boundText(f, log.bindings, log.plain)) !== "") log = root;
    else f = formatOf((log = log.made));
  } else {
    f = formatOf(log);
  }
  if (!f || !plainKeys(f, fields.keys)) return false;
  // The bindings are read per line: pino's setBindings may change them.
  const chindings = ((log as PinoInternals)[chindingsSym!] as string | undefined) ?? "";
  f.stream.write(headOf(f, chindings) + bound + fields.members + tailOf(f, msg));
  return true;
}

/**
 * How a pino logger writes an info line, read once per logger: pino sets these when it makes a
 * logger and never changes them, and each is a lookup by symbol on an object of ~40 of them.
 */
interface LineFormat {
  /** `{"level":30`, or what the logger's levels make of info. */
  prefix: string;
  time: () => string;
  stream: Stream;
  /** The message key, quoted. */
  messageKey: string;
  end: string;
  serializers: Record<string, unknown>;
  stringifiers: Record<string | symbol, unknown>;
  /** Whether bindings reach the line as they are (pino's identity bindings formatter). */
  plainBindings: boolean;
  /** Key lists found with no serializer or redaction of any of their keys. */
  plain: WeakSet<readonly string[]>;
  /** Binding keys found plain, each with its `,"key":`. */
  bound: Map<string, string>;
  /**
   * The last line's level, time and bindings, with what it was made of: `at` is the time's
   * millisecond for pino's default clock (numbers compare at once, where two texts of one
   * length are compared character by character), the time's text for any other clock.
   */
  head: { at: number | string; chindings: string; text: string };
  /** The last line's message and end, as one flat text. */
  tail: { msg: string; text: string };
}

// null: a logger this module leaves to pino.
const FORMATS = new WeakMap<object, LineFormat | null>();

/** The line format of `log`, or null when pino would write anything else than what this module writes. */
function formatOf(log: unknown): LineFormat | null {
  if (typeof log !== "object" || log === null) return null;
  let f = FORMATS.get(log);
  if (f === undefined) FORMATS.set(log, (f = readFormat(log as PinoInternals)));
  return f;
}

// Nothing of pino's that would change the line is set: no mixin, hook, nesting, prefix, log
// formatter, wildcard redaction or stream that wants metadata.
function readFormat(l: PinoInternals): LineFormat | null {
  const stream = l[streamSym!] as Stream | undefined;
  const info = l.levels?.values.info;
  const prefix = info === undefined ? undefined : (l[lsCacheSym!] as Record<number, string> | undefined)?.[info];
  const time = l[timeSym!] as (() => string) | undefined;
  const formatters = l[formattersSym!] as { log?: unknown; bindings?: unknown } | undefined;
  const hooks = l[hooksSym!] as { logMethod?: unknown; streamWrite?: unknown } | undefined;
  const serializers = l[serializersSym!] as Record<string, unknown> | undefined;
  const stringifiers = l[stringifiersSym!] as Record<string | symbol, unknown> | undefined;
  if (!stream || prefix === undefined || !time || stream[needsMetadataGsym!]) return null;
  if (l[mixinSym!] || l[nestedKeySym!] || l[msgPrefixSym!] || formatters?.log || hooks?.logMethod || hooks?.streamWrite) return null;
  if (!serializers || !stringifiers || stringifiers[wildcardFirstSym!]) return null;
  return {
    prefix,
    // pino's default clock, as one text per millisecond: several lines share one at load.
    time: time === stdTimeFunctions.epochTime ? epochTime : time,
    stream,
    messageKey: JSON.stringify((l[messageKeySym!] as string | undefined) ?? "msg"),
    end: (l[endSym!] as string | undefined) ?? "}\n",
    serializers,
    stringifiers,
    plainBindings: PLAIN_BINDINGS.has(formatters?.bindings),
    plain: new WeakSet(),
    bound: new Map(),
    head: { at: "", chindings: "", text: "" },
    tail: { msg: "", text: "" },
  };
}

// A line's text is joined from few pieces: the same head for every line of a millisecond, the
// same tail for every line of a message. Each piece is one more step for V8 when the batched
// lines are flattened and written (bench/history/2026-12-07-execute-path.md).

/** `{"level":30,"time":…` and the logger's bindings: the last line's when they are the same. */
function headOf(f: LineFormat, chindings: string): string {
  const time = f.time();
  const at = f.time === epochTime ? lastMs : time;
  const { head } = f;
  // Three pieces, joined with `+`: an array's join cost ~1 k instructions, paid on every line
  // of a server whose lines are each of their own millisecond.
  if (head.at !== at || head.chindings !== chindings || head.text === "") f.head = { at, chindings, text: f.prefix + time + chindings };
  return f.head.text;
}

/** `,"msg":…}` and the line's end: the last line's when the message is the same. */
function tailOf(f: LineFormat, msg: string): string {
  if (f.tail.msg !== msg || f.tail.text === "") f.tail = { msg, text: [",", f.messageKey, ":", jsonString(msg), f.end].join("") };
  return f.tail.text;
}

// pino's own bindings formatters, both the identity: a root's default, and the one a child gets
// (Fastify's logger is always a child of the one it is given). A configured one replaces them.
const PLAIN_BINDINGS = ((): Set<unknown> => {
  const root = pino({ level: "silent" });
  const bindingsOf = (l: unknown) => ((l as PinoInternals)[formattersSym!] as { bindings?: unknown }).bindings;
  return new Set([bindingsOf(root), bindingsOf(root.child({}, {}))]);
})();

/** No serializer or redaction applies to any of `keys` (a constant list: checked once per logger). */
function plainKeys(f: LineFormat, keys: readonly string[]): boolean {
  if (f.plain.has(keys)) return true;
  for (const key of keys) if (f.serializers[key] || f.stringifiers[key]) return false;
  f.plain.add(keys);
  return true;
}

/**
 * The text pino's child would append to the root's bindings for `bindings` of plain string
 * values, or "" when pino would do anything else with them (a formatter, a serializer or a
 * redaction of one of them, a value that is not a string). `plain`: the values need no escape
 * (a request id: checking one again cost ~1.5 k instructions of every call's line, most of it
 * flattening the id, which the write does anyway).
 */
function boundText(f: LineFormat | null, bindings: Record<string, unknown>, plain: boolean): string {
  if (!f?.plainBindings) return "";
  let text = "";
  for (const key in bindings) {
    const value = bindings[key];
    if (typeof value !== "string") return "";
    // Once per key and logger: every request binds the same key (its id).
    let quotedKey = f.bound.get(key);
    if (quotedKey === undefined) {
      if (f.serializers[key] || f.stringifiers[key] || !/^\w+$/.test(key) || RESERVED.has(key)) return "";
      f.bound.set(key, (quotedKey = `,"${key}":`));
    }
    text += plain ? `${quotedKey}"${value}"` : quotedKey + JSON.stringify(value);
  }
  return text;
}

// Keys pino's child takes for options, never as bindings.
const RESERVED = new Set(["level", "serializers", "formatters", "customLevels"]);

// The last millisecond's `,"time":…`, made once per millisecond: several lines share one at load.
let lastMs = -1;
let lastTime = "";

/** pino's `epochTime`: the same text. */
function epochTime(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastTime = `,"time":${msText(ms)}`;
  }
  return lastTime;
}

/**
 * `String(ms)` for a time in milliseconds, written from two small integers: a 13-digit number
 * is a double to V8, and a double's text a runtime call (~1 k instructions), a small integer's
 * an inline one.
 */
export function msText(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 1e6) return String(ms);
  const high = Math.floor(ms / 1e6);
  // The low six digits with their zeros: 1,000,000 + low, its first digit cut. A template, not
  // String(): the String constructor is a builtin call of its own.
  return `${high}${`${ms - high * 1e6 + 1e6}`.slice(1)}`;
}
