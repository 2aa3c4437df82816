import type { HttpToolConfig } from "../../config/schema/sources.js";
import type { JSONSchema } from "../../core/types.js";
import { dotSegmentError, dotSegmentPlaceholders } from "./dot-segments.js";
import type { OutboundRequest } from "./send-request.js";

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_.-]*)\}/g;

/** Methods whose leftover arguments go to the query string: they carry no body. */
const BODYLESS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The `{name}` placeholders of a URL template, in order, without repeats. */
export function placeholders(url: string): string[] {
  return [...new Set([...url.matchAll(PLACEHOLDER)].map((m) => m[1] as string))];
}

/** The inputSchema of a declaration without one: its placeholders (required) and query names. */
export function defaultInputSchema(cfg: Pick<HttpToolConfig, "url" | "query" | "body" | "method">): JSONSchema {
  const properties: Record<string, JSONSchema> = {};
  const required = placeholders(cfg.url);
  for (const name of required) properties[name] = { type: "string", description: `Fills {${name}} in the URL.` };
  for (const name of cfg.query ?? []) properties[name] ??= { type: "string", description: "Sent in the query string." };
  if (cfg.body === "raw" && !BODYLESS.has((cfg.method ?? "GET").toUpperCase())) {
    properties.body ??= { type: "string", description: "The request body, sent as is." };
  }
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}

/** Text form of an argument value for a URL or a form field. */
function text(v: unknown): string {
  return typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : JSON.stringify(v);
}

function appendParam(params: URLSearchParams, name: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) for (const v of value) params.append(name, text(v));
  else params.append(name, text(value));
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}

/**
 * Turns a declaration and the model's arguments into a request: placeholders
 * are URL-encoded into the URL and leave the body, `query` names go to the query string,
 * the rest is the body (`json` default, `form`, or `raw` = the `body` argument as is). For
 * GET/HEAD/OPTIONS the rest goes to the query string instead. A missing placeholder
 * argument is a model-facing error string; a placeholder that makes a path segment `.` or
 * `..` throws INVALID_ARGUMENTS.
 */
export function buildHttpRequest(cfg: HttpToolConfig, args: Record<string, unknown>): OutboundRequest | string {
  const rest: Record<string, unknown> = { ...args };
  const missing: string[] = [];
  const filled = cfg.url.replace(PLACEHOLDER, (_m, name: string) => {
    const v = rest[name];
    delete rest[name];
    if (v === undefined || v === null) {
      missing.push(name);
      return "";
    }
    return encodeURIComponent(text(v));
  });
  if (missing.length) return `missing argument${missing.length > 1 ? "s" : ""} for the URL: ${missing.join(", ")}`;
  const climbing = dotSegmentPlaceholders(cfg.url, filled);
  if (climbing.length) throw dotSegmentError(climbing);

  let url: URL;
  try {
    url = new URL(filled);
  } catch {
    return "the URL is not valid once its placeholders are filled";
  }
  for (const name of cfg.query ?? []) {
    appendParam(url.searchParams, name, rest[name]);
    delete rest[name];
  }
  const method = (cfg.method ?? "GET").toUpperCase();
  const headers: Record<string, string> = { ...cfg.headers };
  const out: OutboundRequest = { method, url, headers };
  if (BODYLESS.has(method)) {
    for (const [k, v] of Object.entries(rest)) appendParam(url.searchParams, k, v);
    return out;
  }
  const mode = cfg.body ?? "json";
  if (mode === "raw") {
    if (rest.body !== undefined) {
      out.body = text(rest.body);
      if (!hasHeader(headers, "content-type")) headers["content-type"] = "text/plain; charset=utf-8";
    }
  } else if (Object.keys(rest).length > 0) {
    if (mode === "form") {
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(rest)) appendParam(form, k, v);
      out.body = form.toString();
      if (!hasHeader(headers, "content-type")) headers["content-type"] = "application/x-www-form-urlencoded";
    } else {
      out.body = JSON.stringify(rest);
      if (!hasHeader(headers, "content-type")) headers["content-type"] = "application/json";
    }
  }
  return out;
}
