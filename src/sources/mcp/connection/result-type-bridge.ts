import type { Client, Transport } from "@modelcontextprotocol/client";

/**
 * Reads a 2026-era result that has no `resultType` as `"complete"`, as the SDK already does
 * for earlier revisions. The revision makes `resultType` required, and the v2 client refuses
 * such a result as malformed; but servers that bolt the 2026 lifecycle onto an older SDK
 * (the conformance suite's own reference server among them) leave it out of ordinary
 * results, and a gateway that turns their every answer into a 502 serves nobody. A result
 * that names a `resultType` (`input_required` included) is left exactly as sent.
 *
 * Must be installed before `client.connect`: the SDK's own handler runs after this one.
 */
export function bridgeAbsentResultType(transport: Transport, client: Client): void {
  const next = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (client.getProtocolEra() === "modern" && "result" in message) {
      const result: unknown = message.result;
      if (result !== null && typeof result === "object" && !Array.isArray(result) && !("resultType" in result)) {
        (result as Record<string, unknown>).resultType = "complete";
      }
    }
    next?.(message, extra);
  };
}
