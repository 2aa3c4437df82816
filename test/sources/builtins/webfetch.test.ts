import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_DOWNLOAD_BYTES, toText, webfetchTool } from "../../../src/sources/builtins/tools/webfetch.js";

const PAGE = `<!doctype html><html><head><title>Docs</title><style>body{color:red}</style>
<script>alert("x")</script></head><body><h1>Hello &amp; welcome</h1>
<p>Read the <a href="/guide">guide</a> and <strong>enjoy</strong>.</p>
<ul><li>one</li><li>two</li></ul></body></html>`;

let server: Server;
let base = "";
let closedSeen = 0;

function start(host: string): Promise<Server> {
  const s = createServer((req, res) => {
    const path = req.url ?? "/";
    if (path === "/page") {
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end(PAGE);
    } else if (path === "/plain") {
      res.setHeader("content-type", "text/plain");
      res.end("just text");
    } else if (path === "/moved") {
      res.writeHead(302, { location: "/page" });
      res.end();
    } else if (path === "/missing") {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not here");
    } else if (path === "/huge") {
      // Streamed without a content-length: the cap has to count bytes as they arrive.
      res.setHeader("content-type", "text/plain");
      const chunk = Buffer.alloc(64 * 1024, "a");
      let sent = 0;
      const pump = () => {
        while (sent <= MAX_DOWNLOAD_BYTES) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      res.once("close", () => closedSeen++);
      pump();
    } else if (path === "/long") {
      res.setHeader("content-type", "text/plain");
      res.end("é".repeat(100));
    } else if (path === "/image") {
      res.setHeader("content-type", "image/png");
      res.end(Buffer.from([0x89, 0x50]));
    } else if (path === "/hang") {
      // never answers
    } else {
      res.end("?");
    }
  });
  return new Promise((r) => s.listen(0, host, () => r(s)));
}

beforeAll(async () => {
  server = await start("127.0.0.1");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

const limits = { outputLimitBytes: 64 * 1024, maxFileBytes: 1 << 20, maxScanFiles: 100 };
const tool = (egress = {}, outputLimitBytes = limits.outputLimitBytes) => webfetchTool({ egress, limits: { ...limits, outputLimitBytes } });

describe("webfetch", () => {
  it("has the contract's name and schema", () => {
    const t = tool();
    expect(t.name).toBe("webfetch");
    expect(t.source).toBe("builtin");
    expect(t.inputSchema).toMatchObject({
      required: ["url"],
      properties: { url: { type: "string" }, format: { enum: ["text", "markdown", "html"] }, timeout: { type: "number" } },
    });
  });

  it("converts HTML to markdown by default (following redirects)", async () => {
    const r = await tool().execute({ url: `${base}/moved` });
    expect(r.isError).toBe(false);
    expect(r.output).toBe("# Hello & welcome\n\nRead the [guide](/guide) and **enjoy**.\n\n-   one\n-   two");
    expect(r.metadata).toMatchObject({ status: 200, contentType: "text/html; charset=utf-8" });
  });

  it("text and html formats", async () => {
    expect((await tool().execute({ url: `${base}/page`, format: "text" })).output).toBe(
      "Docs\n\nHello & welcome\n\nRead the guide and enjoy .\n\none\ntwo",
    );
    expect((await tool().execute({ url: `${base}/page`, format: "html" })).output).toBe(PAGE);
    expect((await tool().execute({ url: `${base}/plain` })).output).toBe("just text");
  });

  it("non-2xx is HTTP <status>", async () => {
    expect(await tool().execute({ url: `${base}/missing` })).toEqual({ output: "HTTP 404", isError: true, metadata: { status: 404 } });
  });

  it("refuses a body over the download cap without reading it all", async () => {
    const r = await tool().execute({ url: `${base}/huge` });
    expect(r).toEqual({ output: `webfetch: the response exceeds ${MAX_DOWNLOAD_BYTES} bytes`, isError: true });
    await expect.poll(() => closedSeen).toBe(1);
  });

  it("caps the output at builtins.outputLimitBytes on a character boundary", async () => {
    const r = await tool({}, 51).execute({ url: `${base}/long` });
    expect(r.output).toBe(`${"é".repeat(25)}\n\n[content truncated: 150 of 200 bytes omitted; the limit is 51 bytes]`);
  });

  it("refuses binary content, bad URLs and non-http schemes", async () => {
    expect((await tool().execute({ url: `${base}/image` })).output).toBe("webfetch: unsupported content type image/png");
    expect((await tool().execute({ url: "file:///etc/passwd" })).output).toBe("webfetch: url must start with http:// or https://");
    expect((await tool().execute({ url: "not a url" })).isError).toBe(true);
  });

  it("is refused by a deny rule (and by default for metadata hosts)", async () => {
    const walled = await start("127.0.0.2");
    try {
      const url = `http://127.0.0.2:${(walled.address() as AddressInfo).port}/page`;
      expect((await tool().execute({ url })).isError).toBe(false);
      expect(await tool({ deny: ["127.0.0.2"] }).execute({ url })).toEqual({
        isError: true,
        output: `webfetch: cannot reach ${new URL(url).origin}: egress to 127.0.0.2 refused: denied by egress.deny`,
      });
      expect((await tool().execute({ url: "http://169.254.169.254/latest/meta-data/" })).output).toBe(
        "webfetch: cannot reach http://169.254.169.254: egress to 169.254.169.254 refused: link-local address",
      );
      expect((await tool().execute({ url: "http://metadata.google.internal/" })).output).toBe(
        "webfetch: cannot reach http://metadata.google.internal: egress to metadata.google.internal refused: cloud metadata host",
      );
    } finally {
      await new Promise<void>((r) => walled.close(() => r()));
    }
  });

  it("a redirect to a denied address is refused at the hop", async () => {
    const hop = createServer((_q, res) => {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" });
      res.end();
    });
    await new Promise<void>((r) => hop.listen(0, "127.0.0.1", r));
    try {
      const r = await tool().execute({ url: `http://127.0.0.1:${(hop.address() as AddressInfo).port}/` });
      expect(r.output).toMatch(/egress to 169\.254\.169\.254 refused: link-local address$/);
    } finally {
      await new Promise<void>((r) => hop.close(() => r()));
    }
  });

  it("times out as a model-facing error, and honours ctx.signal", async () => {
    expect((await tool().execute({ url: `${base}/hang`, timeout: 0.2 })).output).toBe("webfetch: no answer within 0.2 s");
    const ac = new AbortController();
    const reason = new Error("gone");
    setTimeout(() => ac.abort(reason), 50);
    await expect(tool().execute({ url: `${base}/hang` }, { signal: ac.signal })).rejects.toBe(reason);
  });
});

describe("toText", () => {
  it("decodes entities and drops scripts", () => {
    expect(toText("<p>a&lt;b &#233; &#x41;</p><script>x()</script>")).toBe("a<b é A");
  });
});
