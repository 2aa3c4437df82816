import { pino, symbols } from "pino";
import { RequestLogger } from "../http/request-logger.js";

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
 * Writes one info line of flat fields (strings, finite numbers, booleans; undefined ones left
 * out) the way pino writes `log.info(fields, msg)`: the level, the time and the logger's
 * bindings as pino has them, then the fields in their order and the message. The fields are
 * serialized with one JSON.stringify, where pino escapes each key and value in a loop of its own
 * and concatenates them piece by piece: ~13 k instructions of every tool call's line
 * (bench/history/2026-12-06-execute-path.md). The bytes are pino's but for a lone surrogate,
 * which JSON.stringify escapes where pino wrote it raw (and UTF-8 made it U+FFFD). Returns
 * false, having written nothing, when `log`
 * is not a pino logger this applies to (a mixin, hooks, a nested key, a serializer or a
 * redaction of one of the fields, a stream that wants metadata): log as usual then.
 */
export function writeInfoLine(log: unknown, fields: Record<string, unknown>, msg: string): boolean {
  // A request's logger with no child yet: the root's line with the request's bindings after
  // the root's, as pino's child would have them.
  let bound = "";
  if (log instanceof RequestLogger) {
    const root = log.unbound;
    if (root && (bound = boundText(root as unknown as PinoInternals, log.bindings)) !== "") log = root;
    else log = log.made;
  }
  const l = log as PinoInternals;
  const stream = l[streamSym!] as Stream | undefined;
  const info = l.levels?.values.info;
  const prefix = info === undefined ? undefined : (l[lsCacheSym!] as Record<number, string> | undefined)?.[info];
  const time = l[timeSym!] as (() => string) | undefined;
  if (!stream || prefix === undefined || !time || stream[needsMetadataGsym!] || !plain(l, fields)) return false;
  const body = JSON.stringify(fields);
  const props = body.length > 2 ? `,${body.slice(1, -1)}` : "";
  stream.write(
    `${prefix}${time()}${(l[chindingsSym!] as string | undefined) ?? ""}${bound}${props},${quoted((l[messageKeySym!] as string | undefined) ?? "msg")}:${quoted(msg)}${(l[endSym!] as string | undefined) ?? "}\n"}`,
  );
  return true;
}

// pino's own bindings formatters, both the identity: a root's default, and the one a child gets
// (Fastify's logger is always a child of the one it is given). A configured one replaces them.
const PLAIN_BINDINGS = ((): Set<unknown> => {
  const root = pino({ level: "silent" });
  const bindingsOf = (l: unknown) => ((l as PinoInternals)[formattersSym!] as { bindings?: unknown }).bindings;
  return new Set([bindingsOf(root), bindingsOf(root.child({}, {}))]);
})();

/**
 * The text pino's child would append to the root's bindings for `bindings` of plain string
 * values, or "" when pino would do anything else with them (a formatter, a serializer or a
 * redaction of one of them, a value that is not a string).
 */
function boundText(l: PinoInternals, bindings: Record<string, unknown>): string {
  if (!PLAIN_BINDINGS.has((l[formattersSym!] as { bindings?: unknown } | undefined)?.bindings)) return "";
  const serializers = l[serializersSym!] as Record<string, unknown> | undefined;
  const stringifiers = l[stringifiersSym!] as Record<string | symbol, unknown> | undefined;
  if (!serializers || !stringifiers || stringifiers[wildcardFirstSym!]) return "";
  let text = "";
  for (const key in bindings) {
    const value = bindings[key];
    if (typeof value !== "string" || serializers[key] || stringifiers[key] || !/^\w+$/.test(key) || RESERVED.has(key)) return "";
    text += `,"${key}":${JSON.stringify(value)}`;
  }
  return text;
}

// Keys pino's child takes for options, never as bindings.
const RESERVED = new Set(["level", "serializers", "formatters", "customLevels"]);

// The message key and the messages are a few constants: each is quoted once.
const QUOTED = new Map<string, string>();
function quoted(text: string): string {
  let q = QUOTED.get(text);
  if (q === undefined) {
    q = JSON.stringify(text);
    if (QUOTED.size < 64) QUOTED.set(text, q);
  }
  return q;
}

// The field names found plain per serializers object (a request's logger shares its root's),
// with the stringifiers they were checked against.
const PLAIN = new WeakMap<object, { stringifiers: object; keys: Set<string> }>();

// Nothing of pino's that would change the line is set: no mixin, hook, nesting, prefix, log
// formatter, and no serializer or redaction for any of the fields.
function plain(l: PinoInternals, fields: Record<string, unknown>): boolean {
  if (l[mixinSym!] || l[nestedKeySym!] || l[msgPrefixSym!] || (l[formattersSym!] as { log?: unknown } | undefined)?.log) return false;
  const hooks = l[hooksSym!] as { logMethod?: unknown; streamWrite?: unknown } | undefined;
  if (hooks?.logMethod || hooks?.streamWrite) return false;
  const serializers = l[serializersSym!] as Record<string, unknown> | undefined;
  const stringifiers = l[stringifiersSym!] as Record<string | symbol, unknown> | undefined;
  if (!serializers || !stringifiers || stringifiers[wildcardFirstSym!]) return false;
  let known = PLAIN.get(serializers);
  if (known?.stringifiers !== stringifiers) PLAIN.set(serializers, (known = { stringifiers, keys: new Set() }));
  for (const key in fields) {
    if (known.keys.has(key)) continue;
    if (serializers[key] || stringifiers[key]) return false;
    known.keys.add(key);
  }
  return true;
}
