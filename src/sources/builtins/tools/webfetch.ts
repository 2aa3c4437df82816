import { interceptors, request, type Dispatcher } from "undici";
import { EgressGuard } from "../../../net/egress-guard.js";
import { networkErrorReason } from "../../../net/network-error.js";
import { decode } from "../../http/send-request.js";
import type { BuiltinEnv } from "../common/env.js";
import { builtinTool, fail, ok } from "../common/tool.js";

/** A page larger than this is not downloaded further (then the output cap applies to what it became). */
export const MAX_DOWNLOAD_BYTES = 5 * 1024 * 1024;
const DEFAULT_TIMEOUT_S = 30;
const MAX_TIMEOUT_S = 120;
const MAX_REDIRECTS = 5;

type Format = "text" | "markdown" | "html";

const ACCEPT: Record<Format, string> = {
  markdown: "text/markdown;q=1.0, text/x-markdown;q=0.9, text/plain;q=0.8, text/html;q=0.7, */*;q=0.1",
  text: "text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1",
  html: "text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, */*;q=0.1",
};

/** What the page turned out to be. */
type Fetched = { status: number; contentType: string; body: Buffer } | { tooLarge: true };

/**
 * `webfetch`: GET a URL through the egress guard and return it as markdown
 * (default), plain text or raw HTML. Redirects are followed (each hop is checked by the
 * guard again); non-2xx is `HTTP <status>`; a refused, unreachable or slow site is a
 * model-facing error; the output is capped at `builtins.outputLimitBytes`.
 */
export function webfetchTool(env: Pick<BuiltinEnv, "egress" | "limits">) {
  const guard = new EgressGuard(env.egress);
  return builtinTool({
    name: "webfetch",
    description: "Fetch a URL (HTTP GET) and return its content as markdown (default), plain text or HTML.",
    inputSchema: {
      type: "object",
      properties: {
        url: { type: "string", description: "The http(s) URL to fetch" },
        format: { type: "string", enum: ["text", "markdown", "html"], default: "markdown", description: "How to return the content" },
        timeout: { type: "number", description: `Seconds before giving up (default ${DEFAULT_TIMEOUT_S}, at most ${MAX_TIMEOUT_S})` },
      },
      required: ["url"],
      additionalProperties: false,
    },
    async run(args, ctx) {
      let url: URL;
      try {
        url = new URL(String(args.url));
      } catch {
        return fail("webfetch: url is not a valid URL");
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") return fail("webfetch: url must start with http:// or https://");
      const format: Format = args.format === "text" || args.format === "html" ? args.format : "markdown";
      const seconds = typeof args.timeout === "number" && args.timeout > 0 ? Math.min(args.timeout, MAX_TIMEOUT_S) : DEFAULT_TIMEOUT_S;
      const timer = AbortSignal.timeout(seconds * 1000);
      const signal = ctx.signal ? AbortSignal.any([ctx.signal, timer]) : timer;
      // One pool per call: fetches go to arbitrary hosts, so there is little to reuse and nothing to leak.
      const agent = guard.dispatcher();
      let page: Fetched;
      try {
        page = await fetchPage(url, ACCEPT[format], agent.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTS })), signal);
      } catch (err) {
        if (ctx.signal?.aborted) throw ctx.signal.reason;
        if (timer.aborted) return fail(`webfetch: no answer within ${seconds} s`);
        const reason = networkErrorReason(err);
        if (reason) return fail(`webfetch: cannot reach ${url.origin}: ${reason}`);
        throw err;
      } finally {
        void agent.close().catch(() => {});
      }
      if ("tooLarge" in page) return fail(`webfetch: the response exceeds ${MAX_DOWNLOAD_BYTES} bytes`);
      if (page.status < 200 || page.status > 299) return fail(`HTTP ${page.status}`, { status: page.status });
      if (!isTextual(page.contentType))
        return fail(`webfetch: unsupported content type ${page.contentType || "(none)"}`, { status: page.status });
      const raw = decode(page.body, page.contentType);
      const html = /html/i.test(page.contentType);
      const out = format === "html" || !html ? raw : format === "markdown" ? await toMarkdown(raw) : toText(raw);
      return ok(cap(out, env.limits.outputLimitBytes), { status: page.status, url: url.href, contentType: page.contentType });
    },
  });
}

async function fetchPage(url: URL, accept: string, dispatcher: Dispatcher, signal: AbortSignal): Promise<Fetched> {
  const res = await request(url, {
    method: "GET",
    headers: { accept, "accept-language": "en-US,en;q=0.9", "user-agent": "toolnexus-webfetch/1.0" },
    dispatcher,
    signal,
  });
  const contentType = String(res.headers["content-type"] ?? "");
  const chunks: Buffer[] = [];
  let size = Number(res.headers["content-length"] ?? 0);
  if (size > MAX_DOWNLOAD_BYTES) {
    res.body.on("error", () => {});
    res.body.destroy();
    return { tooLarge: true };
  }
  size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_DOWNLOAD_BYTES) {
      res.body.on("error", () => {});
      res.body.destroy();
      return { tooLarge: true };
    }
    chunks.push(chunk);
  }
  return { status: res.statusCode, contentType, body: Buffer.concat(chunks) };
}

function isTextual(contentType: string): boolean {
  if (!contentType) return true;
  return /^(text\/|application\/(xhtml\+xml|xml|json|javascript|ld\+json|rss\+xml|atom\+xml)|[^;]*\+(json|xml))/i.test(contentType.trim());
}

/**
 * HTML → markdown with turndown; scripts, styles and other non-content elements dropped.
 * Turndown (and its DOM) is imported on first use: most configs never fetch a page.
 */
async function toMarkdown(html: string): Promise<string> {
  const { default: TurndownService } = await import("turndown");
  const td = new TurndownService({ headingStyle: "atx", hr: "---", bulletListMarker: "-", codeBlockStyle: "fenced", emDelimiter: "*" });
  td.remove(["head", "title", "script", "style", "noscript", "meta", "link", "iframe", "object", "embed"]);
  return td.turndown(html).trim();
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** HTML → the text a reader sees: no scripts or styles, tags stripped, entities decoded, blank runs collapsed. */
export function toText(html: string): string {
  return html
    .replace(/<(script|style|noscript|iframe|object|embed|template)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<(br|\/p|\/div|\/h[1-6]|\/li|\/tr|\/title)\b[^>]*>/gi, "\n")
    .replace(/<[^>]+>/g, " ")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === "#") {
        const n = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return Number.isFinite(n) && n >= 0 && n <= 0x10ffff ? String.fromCodePoint(n) : m;
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .replace(/[ \t\f\v\r]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Keeps the first `max` bytes (the top of a page is what matters) and says what was cut. */
function cap(text: string, max: number): string {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= max) return text;
  // Back off to a character boundary so the cut never splits a UTF-8 sequence.
  let end = max;
  while (end > 0 && ((buf[end] ?? 0) & 0xc0) === 0x80) end--;
  return `${buf.subarray(0, end).toString("utf8")}\n\n[content truncated: ${buf.length - end} of ${buf.length} bytes omitted; the limit is ${max} bytes]`;
}
