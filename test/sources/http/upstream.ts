import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { freePort } from "../../helpers/free-port.js";

/** One request as the upstream saw it. */
interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real node:http upstream on a loopback address with a few behaviours, recording what it receives. */
export interface Upstream {
  url: string;
  port: number;
  seen: SeenRequest[];
  /** Resolves when a /slow request's connection closed before it was answered. */
  slowClosed: Promise<void>;
  /** Resolves when a /slow request arrived. */
  slowArrived: Promise<void>;
  close(): Promise<void>;
}

/**
 * Routes: /echo… answers 200 with JSON of the request; /status/<code> answers that code
 * with body "nope <code>"; /slow never answers; /big/<n> sends n bytes; /json sends spaced
 * JSON; /text sends plain text; /latin1 sends ISO-8859-1.
 */
export async function startUpstream(host = "127.0.0.1"): Promise<Upstream> {
  const seen: SeenRequest[] = [];
  let onSlowClosed!: () => void;
  let onSlowArrived!: () => void;
  const slowClosed = new Promise<void>((r) => (onSlowClosed = r));
  const slowArrived = new Promise<void>((r) => (onSlowArrived = r));
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rec = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      seen.push(rec);
      const path = rec.url.split("?")[0] ?? "";
      if (path.startsWith("/echo")) {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(rec));
      } else if (path.startsWith("/status/")) {
        res.statusCode = Number(path.slice(8));
        res.end(`nope ${res.statusCode}`);
      } else if (path === "/slow") {
        res.once("close", () => {
          if (!res.writableEnded) onSlowClosed();
        });
        onSlowArrived();
      } else if (path.startsWith("/big/")) {
        res.setHeader("content-type", "text/plain");
        res.end("x".repeat(Number(path.slice(5))));
      } else if (path === "/json") {
        res.setHeader("content-type", "application/json");
        res.end('{ "a": 1,\n  "b": [ true ] }');
      } else if (path === "/latin1") {
        res.setHeader("content-type", "text/plain; charset=iso-8859-1");
        res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      } else {
        res.setHeader("content-type", "text/plain");
        res.end("hello");
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    seen,
    slowClosed,
    slowArrived,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A loopback port with nothing listening on it (bound, then released). */

/** A loopback port with nothing listening: connecting to it is refused. */
export const closedPort = freePort;
