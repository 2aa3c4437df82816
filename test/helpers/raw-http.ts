import { connect } from "node:net";

/** What came back on a raw socket: the bytes, parsed into a status line, headers and body. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** True when the server closed the connection. */
  closed: boolean;
}

/**
 * Writes `bytes` as-is to the server at `url` and reads until the server closes the socket
 * (or `timeoutMs` passes): for requests no HTTP client would send.
 */
export function rawRequest(url: string, bytes: string | Buffer, timeoutMs = 5000): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let closed = false;
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on("connect", () => socket.write(bytes));
    socket.on("data", (b) => chunks.push(b));
    socket.on("end", () => {
      closed = true;
    });
    socket.on("error", () => {
      closed = true;
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const status = Number(statusLine.split(" ")[1]);
      if (!Number.isInteger(status)) {
        reject(new Error(`no HTTP response: ${JSON.stringify(text.slice(0, 200))}`));
        return;
      }
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(":");
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      resolve({ status, headers, body: rest.join("\r\n\r\n"), closed });
    });
  });
}
