import { sanitize } from "../sanitize.js";

/**
 * How an MCP server's resources and prompts are named in the catalog, both ways. Pure: the
 * source and the transports share it, so what a caller is shown is what the gateway takes back.
 *
 * A prompt is named like a tool, `<prefix>_<name>`. A resource URI becomes `<prefix>+<uri>`
 * (a `+` is allowed in a URI scheme, so the result is still a URI and a template's variables
 * keep matching); a `ui://` URI (an MCP App) keeps its scheme, `ui://<prefix>+<rest>`, so a
 * host still knows it for an app. With `prefix: false` names and URIs pass unchanged.
 */

/** A source's prefix: a string, or `false` for the server's own names. */
export type SurfacePrefix = string | false;

const UI = "ui://";

/**
 * The prefix as it appears in a URI: a scheme's characters only (letters, digits, `-`, `.`),
 * anything else `-`, and a leading letter (a scheme must start with one). It never holds a `+`,
 * so the first `+` of an exposed URI ends it.
 */
export function uriPrefix(prefix: string): string {
  const p = prefix.replace(/[^A-Za-z0-9.-]/g, "-");
  return /^[A-Za-z]/.test(p) ? p : `x${p}`;
}

/** The catalog's name of a server's prompt. */
export function exposedPromptName(prefix: SurfacePrefix, name: string): string {
  return prefix === false ? name : `${sanitize(prefix)}_${name}`;
}

/** The catalog's form of a server's resource URI (or URI template). */
export function exposedUri(prefix: SurfacePrefix, uri: string): string {
  if (prefix === false) return uri;
  const p = uriPrefix(prefix);
  return isUi(uri) ? `${UI}${p}+${uri.slice(UI.length)}` : `${p}+${uri}`;
}

/** The server's own URI behind an exposed one, or undefined when it does not carry this prefix. */
export function upstreamUri(prefix: SurfacePrefix, exposed: string): string | undefined {
  if (prefix === false) return exposed;
  const head = `${uriPrefix(prefix)}+`;
  if (isUi(exposed)) {
    const rest = exposed.slice(UI.length);
    return rest.startsWith(head) ? `${UI}${rest.slice(head.length)}` : undefined;
  }
  return exposed.startsWith(head) ? exposed.slice(head.length) : undefined;
}

/** The prefix an exposed URI names (what comes before its first `+`), or undefined when it names none. */
export function prefixOfUri(exposed: string): string | undefined {
  const body = isUi(exposed) ? exposed.slice(UI.length) : exposed;
  const plus = body.indexOf("+");
  if (plus <= 0) return undefined;
  const p = body.slice(0, plus);
  return /^[A-Za-z][A-Za-z0-9.-]*$/.test(p) ? p : undefined;
}

// The longest URI taken from a caller: longer is no resource anyone lists.
const MAX_URI = 8192;
// A dot segment, as is or percent-encoded ("%2e"), between separators that may be encoded too
// ("%2f", and the "\\" or "%5c" a Windows server splits on): what a server resolving paths, or a
// template variable decoded into one, could climb out with.
const DOT_SEGMENT = /(^|\/|\\|%2f|%5c)(\.|%2e){1,2}(\/|\\|%2f|%5c|$|[?#])/i;
// Whitespace and control characters have no place in a URI.
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const FORBIDDEN = /[\s\u0000-\u001f\u007f]/;

/**
 * Why a URI a caller sent is refused before any lookup (undefined: it may be looked up): too
 * long, whitespace or control characters, or a `.`/`..` path segment (raw or percent-encoded).
 * Percent-encoding is otherwise kept as sent: a URI is never decoded on its way through.
 */
export function uriProblem(uri: string): string | undefined {
  if (uri.length === 0) return "the URI is empty";
  if (uri.length > MAX_URI) return `the URI is longer than ${MAX_URI} characters`;
  if (FORBIDDEN.test(uri)) return "the URI holds whitespace or control characters";
  const path = uri.replace(/^[A-Za-z][A-Za-z0-9+.-]*:(\/\/[^/?#]*)?/, "");
  if (DOT_SEGMENT.test(path)) return "the URI holds a . or .. path segment";
  return undefined;
}

function isUi(uri: string): boolean {
  return uri.length >= UI.length && uri.slice(0, UI.length).toLowerCase() === UI;
}
