import { dotSegmentError, dotSegmentPlaceholders } from "../http/dot-segments.js";
import type { OutboundRequest } from "../http/send-request.js";
import { isRecord } from "./json-schema.js";
import type { OperationSpec, ParamSpec } from "./operations.js";

const text = (v: unknown): string =>
  typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : JSON.stringify(v);

/** `simple` style (path and header values): arrays and objects comma-joined. */
function simple(v: unknown): string {
  if (Array.isArray(v)) return v.map(text).join(",");
  if (isRecord(v))
    return Object.entries(v)
      .flatMap(([k, x]) => [k, text(x)])
      .join(",");
  return text(v);
}

function addQuery(params: URLSearchParams, p: ParamSpec, v: unknown): void {
  const explode = p.explode ?? (p.style === undefined || p.style === "form");
  if (Array.isArray(v)) {
    if (explode) for (const x of v) params.append(p.name, text(x));
    else params.append(p.name, v.map(text).join(p.style === "pipeDelimited" ? "|" : p.style === "spaceDelimited" ? " " : ","));
  } else if (isRecord(v)) {
    if (p.style === "deepObject") for (const [k, x] of Object.entries(v)) params.append(`${p.name}[${k}]`, text(x));
    else if (explode) for (const [k, x] of Object.entries(v)) params.append(k, text(x));
    else params.append(p.name, simple(v));
  } else {
    params.append(p.name, text(v));
  }
}

function formBody(v: unknown): string {
  const form = new URLSearchParams();
  if (isRecord(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined || x === null) continue;
      if (Array.isArray(x)) for (const y of x) form.append(k, text(y));
      else form.append(k, text(x));
    }
  }
  return form.toString();
}

/** A header value undici (and RFC 9110 §5.5) accepts: tab, visible ASCII, space and obs-text. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * The request for one call of an operation: path parameters URL-encoded into the path,
 * query/header/cookie parameters in their places, and the body from the merged properties
 * (every argument that is not a parameter) or from the one body argument. A missing path
 * argument, or one that cannot be a header value, is a model-facing error string; a path
 * argument that makes a segment `.` or `..` throws INVALID_ARGUMENTS.
 */
export function buildOperationRequest(
  op: OperationSpec,
  baseUrl: string,
  headers: Record<string, string>,
  args: Record<string, unknown>,
): OutboundRequest | string {
  const missing = op.params.filter((p) => p.in === "path" && (args[p.arg] === undefined || args[p.arg] === null)).map((p) => p.arg);
  if (missing.length) return `missing path argument${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}`;

  let path = op.path;
  for (const p of op.params) if (p.in === "path") path = path.split(`{${p.name}}`).join(encodeURIComponent(simple(args[p.arg])));
  const climbing = dotSegmentPlaceholders(op.path, path);
  if (climbing.length) throw dotSegmentError(climbing, (name) => op.params.find((p) => p.in === "path" && p.name === name)?.arg ?? name);
  let url: URL;
  try {
    url = new URL(baseUrl.replace(/\/+$/, "") + path);
  } catch {
    return `cannot build a URL from ${baseUrl} and ${op.path}`;
  }
  const out: OutboundRequest = { method: op.method, url, headers: { ...headers } };
  const cookies: string[] = [];
  for (const p of op.params) {
    const v = args[p.arg];
    if (v === undefined || v === null || p.in === "path") continue;
    if (p.in === "query") addQuery(url.searchParams, p, v);
    else if (p.in === "header") {
      const value = simple(v);
      // HTTP carries header values of visible Latin-1 text only; the model hears why, the upstream sees nothing.
      if (!HEADER_VALUE.test(value)) return `argument "${p.arg}" cannot be sent as the ${p.name} header: control or non-Latin-1 characters`;
      out.headers[p.name] = value;
    } else cookies.push(`${p.name}=${encodeURIComponent(simple(v))}`);
  }
  if (cookies.length) out.headers.cookie = cookies.join("; ");

  const b = op.body;
  if (!b) return out;
  let value: unknown;
  if (b.merged) {
    const taken = new Set(op.params.map((p) => p.arg));
    const rest = Object.fromEntries(Object.entries(args).filter(([k]) => !taken.has(k)));
    value = Object.keys(rest).length || b.required ? rest : undefined;
  } else {
    value = args[b.arg];
  }
  if (value === undefined) return out;
  out.body = b.mode === "json" ? JSON.stringify(value) : b.mode === "form" ? formBody(value) : text(value);
  if (!Object.keys(out.headers).some((k) => k.toLowerCase() === "content-type"))
    out.headers["content-type"] = b.mediaType === "*/*" ? "application/octet-stream" : b.mediaType;
  return out;
}
