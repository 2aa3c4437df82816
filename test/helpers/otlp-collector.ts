import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One received span, in OTLP/JSON terms (ids as lowercase hex, attributes flattened). */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

/** A local OTLP/HTTP trace receiver. */
export interface Collector {
  /** The endpoint to configure (traces arrive at <endpoint>/v1/traces). */
  endpoint: string;
  /** Content types of the exports received. */
  contentTypes: string[];
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 that decodes OTLP/JSON and OTLP/protobuf trace exports. */
export async function startCollector(): Promise<Collector> {
  const collector: Collector = { endpoint: "", contentTypes: [], spans: [], close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const type = String(req.headers["content-type"] ?? "");
      collector.contentTypes.push(type);
      const body = Buffer.concat(chunks);
      collector.spans.push(...(type.includes("json") ? fromJson(JSON.parse(body.toString("utf8"))) : fromProtobuf(body)));
      res.writeHead(200, { "content-type": type }).end(type.includes("json") ? "{}" : undefined);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  collector.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  collector.close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return collector;
}

type Json = Record<string, unknown>;
type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };

function fromJson(req: Json): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of (req.resourceSpans ?? []) as Json[]) {
    for (const ss of (rs.scopeSpans ?? []) as Json[]) {
      for (const s of (ss.spans ?? []) as Json[]) {
        const attributes: ReceivedSpan["attributes"] = {};
        for (const a of (s.attributes ?? []) as { key: string; value: AnyValue }[]) {
          const v = a.value;
          attributes[a.key] =
            v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue ?? "";
        }
        out.push({
          traceId: String(s.traceId),
          spanId: String(s.spanId),
          parentSpanId: String(s.parentSpanId ?? ""),
          name: String(s.name),
          kind: Number(s.kind),
          attributes,
        });
      }
    }
  }
  return out;
}

// --- OTLP protobuf: just enough of the wire format to read spans (opentelemetry/proto/trace/v1). ---

type Field = { no: number; bytes?: Buffer; varint?: bigint };

function varint(buf: Buffer, at: number): [bigint, number] {
  let v = 0n;
  for (let shift = 0n; ; shift += 7n) {
    const b = buf[at++] ?? 0;
    v |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return [v, at];
  }
}

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  for (let at = 0; at < buf.length;) {
    const [tag, next] = varint(buf, at);
    at = next;
    const no = Number(tag >> 3n);
    switch (Number(tag & 7n)) {
      case 0: {
        const [v, n] = varint(buf, at);
        out.push({ no, varint: v });
        at = n;
        break;
      }
      case 1:
        out.push({ no, bytes: buf.subarray(at, at + 8) });
        at += 8;
        break;
      case 2: {
        const [len, n] = varint(buf, at);
        out.push({ no, bytes: buf.subarray(n, n + Number(len)) });
        at = n + Number(len);
        break;
      }
      case 5:
        out.push({ no, bytes: buf.subarray(at, at + 4) });
        at += 4;
        break;
      default:
        throw new Error(`unsupported wire type in OTLP protobuf at ${at}`);
    }
  }
  return out;
}

const sub = (f: Field[], no: number) => f.filter((x) => x.no === no && x.bytes).map((x) => fields(x.bytes as Buffer));
const bytesOf = (f: Field[], no: number) => f.find((x) => x.no === no)?.bytes ?? Buffer.alloc(0);

function fromProtobuf(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of sub(fields(body), 1)) {
    for (const ss of sub(rs, 2)) {
      for (const s of sub(ss, 2)) {
        const attributes: ReceivedSpan["attributes"] = {};
        for (const kv of sub(s, 9)) {
          const value = sub(kv, 2)[0] ?? [];
          const str = value.find((x) => x.no === 1);
          const int = value.find((x) => x.no === 3);
          attributes[bytesOf(kv, 1).toString("utf8")] = str?.bytes
            ? str.bytes.toString("utf8")
            : int?.varint !== undefined
              ? Number(int.varint)
              : "";
        }
        out.push({
          traceId: bytesOf(s, 1).toString("hex"),
          spanId: bytesOf(s, 2).toString("hex"),
          parentSpanId: bytesOf(s, 4).toString("hex"),
          name: bytesOf(s, 5).toString("utf8"),
          kind: Number(s.find((x) => x.no === 6)?.varint ?? 0n),
          attributes,
        });
      }
    }
  }
  return out;
}
