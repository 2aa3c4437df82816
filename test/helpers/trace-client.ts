import { randomBytes } from "node:crypto";
import { connect } from "node:net";

/** A fresh W3C trace context as a client would send it (`flags` "01" sampled, "00" not). */
export function traceparent(flags = "01"): { header: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { header: `00-${traceId}-${spanId}-${flags}`, traceId, spanId };
}

/**
 * POSTs an execute over a raw socket with `headers`: this process's own fetch goes through
 * undici, whose requests the tracer under test would see (and add a traceparent to).
 */
export function execute(
  baseUrl: string,
  tool: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: { output: string } }> {
  const { hostname, port } = new URL(baseUrl);
  const body = "{}";
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", payload = ""] = text.split("\r\n\r\n");
      try {
        resolve({ status: Number(head.split(" ")[1]), body: JSON.parse(payload) as { output: string } });
      } catch (err) {
        reject(err as Error);
      }
    });
    // write, not end: a half-closed socket reads as a client that went away (499).
    socket.write(
      [
        `POST /tools/${tool}/execute HTTP/1.1`,
        `host: ${hostname}:${port}`,
        "connection: close",
        "content-type: application/json",
        `content-length: ${body.length}`,
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
        "",
        body,
      ].join("\r\n"),
    );
  });
}
