import SwaggerParser from "@apidevtools/swagger-parser";
import { readFile } from "node:fs/promises";
import type { Dispatcher } from "undici";
import { parse as parseYaml } from "yaml";
import { sendRequest } from "../http/send-request.js";
import { isRecord } from "./json-schema.js";

/** What loading needs: the guarded dispatcher and the bounds of one download. */
export interface LoadSpecOptions {
  dispatcher: Dispatcher;
  timeout: number;
  maxBytes: number;
  /** Headers for the spec download itself (only when the spec lives on the API's origin). */
  headers?: Record<string, string>;
}

const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** Downloads one document through the egress guard; a non-2xx or oversized answer is an error. */
async function download(url: string, opts: LoadSpecOptions, headers: Record<string, string>): Promise<string> {
  const res = await sendRequest(
    { method: "GET", url: new URL(url), headers: { accept: "application/json, application/yaml;q=0.9, */*;q=0.5", ...headers } },
    { dispatcher: opts.dispatcher, timeout: opts.timeout, maxResponseBytes: opts.maxBytes, label: "openapi" },
  );
  if (res.tooLarge) throw new Error(`${new URL(url).origin}: the document exceeds ${opts.maxBytes} bytes`);
  if (res.status < 200 || res.status > 299) throw new Error(`${new URL(url).origin}: HTTP ${res.status} fetching the document`);
  return res.text;
}

/**
 * Loads and dereferences an OpenAPI 3.0/3.1 or Swagger 2.0 document with swagger-parser.
 * A URL is downloaded here, through the egress guard (json-schema-ref-parser's own HTTP
 * resolver refuses internal hosts, which are the point of this service); external `$ref`s
 * over HTTP go through the guard as well. A document loaded from a URL may not `$ref` local
 * files.
 */
export async function loadSpec(spec: string, opts: LoadSpecOptions): Promise<Record<string, unknown>> {
  const guarded = {
    order: 1,
    canRead: /^https?:\/\//i,
    read: (file: { url: string }) => download(file.url, opts, {}),
  };
  const options = {
    // `file: true` would replace the built-in file resolver; leave it alone unless disabling it.
    resolve: { http: false, guarded, ...(isUrl(spec) ? { file: false } : {}) },
    dereference: { circular: true },
  } as unknown as SwaggerParser.Options;
  if (!isUrl(spec)) {
    // Read it ourselves first so a missing file says so plainly.
    await readFile(spec, "utf8");
    return (await SwaggerParser.dereference(spec, options)) as unknown as Record<string, unknown>;
  }
  const parsed: unknown = parseYaml(await download(spec, opts, opts.headers ?? {}));
  if (!isRecord(parsed)) throw new Error("the document is not a JSON or YAML object");
  // swagger-parser rewrites relative servers against the spec URL but drops its port; keep
  // the document's own list and resolve it in resolveBaseUrl.
  const servers = structuredClone(parsed.servers);
  // The spec URL stays the base of relative $refs; the parsed object is what gets dereferenced.
  const doc = (await SwaggerParser.dereference(spec, parsed as never, options)) as unknown as Record<string, unknown>;
  if (servers !== undefined) doc.servers = servers;
  return doc;
}

/**
 * The base URL operations are sent to: the configured one, else the document's first server
 * (3.x, variables at their defaults; relative URLs resolved against the spec's URL) or
 * `scheme://host/basePath` (2.0). Throws when only a configured baseUrl could tell.
 */
export function resolveBaseUrl(doc: Record<string, unknown>, spec: string, configured?: string): string {
  if (configured) return configured;
  const specUrl = isUrl(spec) ? new URL(spec) : undefined;
  if (typeof doc.swagger === "string") {
    const schemes = Array.isArray(doc.schemes) ? doc.schemes.filter((s): s is string => typeof s === "string") : [];
    const host = typeof doc.host === "string" ? doc.host : specUrl?.host;
    if (!host) throw new Error("the document names no host and was loaded from a file: set baseUrl");
    const scheme = schemes[0] ?? specUrl?.protocol.replace(":", "") ?? "https";
    return `${scheme}://${host}${typeof doc.basePath === "string" ? doc.basePath : ""}`;
  }
  const first = Array.isArray(doc.servers) && isRecord(doc.servers[0]) ? doc.servers[0] : undefined;
  let url = typeof first?.url === "string" ? first.url : "/";
  if (first && isRecord(first.variables)) {
    for (const [name, v] of Object.entries(first.variables)) {
      if (isRecord(v) && v.default !== undefined) url = url.split(`{${name}}`).join(String(v.default));
    }
  }
  if (isUrl(url)) return url;
  if (!specUrl) throw new Error(`the document's server URL "${url}" is relative and the spec is a file: set baseUrl`);
  return new URL(url, specUrl).href;
}
