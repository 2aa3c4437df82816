import { Client, type RequestOptions, type StandardSchemaV1 } from "@modelcontextprotocol/client";

/**
 * The SDK client with one cost of `tools/call` taken out: the result validator is built once
 * per protocol era instead of on every call.
 *
 * Given no schema, the SDK's `request()` finds out whether a method has a result schema by
 * validating `undefined` against it, a failed zod parse whose error is then stringified (a
 * `ZodError` with a captured stack), and builds a new validator around the era's codec, on every
 * request: 16–22 % of the client's CPU per `tools/call` on the stdio hop (bench/README.md). The
 * schema given here validates with the same codec function (`validateResult`), so a result
 * passes or fails exactly as before; everything else of `callTool` (the output-schema check of
 * `structuredContent`, the 2026 header mirroring and its retry) still runs, since it is the
 * SDK's `callTool` that calls this.
 */
export class GatewayClient extends Client {
  private resultOf?: { codec: ReturnType<GatewayClient["_wireCodec"]>; schema: StandardSchemaV1 };

  override request(
    request: { method: string; params?: Record<string, unknown> },
    schemaOrOptions?: unknown,
    maybeOptions?: RequestOptions,
  ): never {
    // One signature for both of the SDK's overloads: its result type is the overload's, hence `never` here.
    const call = (a: unknown, b?: unknown, c?: unknown): never => (super.request as (...args: unknown[]) => never).call(this, a, b, c);
    // Only the hot method, and only without a caller's schema: `tools/call` is never pinned to a
    // bootstrap era, so `_wireCodec()` is the codec the SDK itself would resolve for it.
    if (request.method !== "tools/call" || isStandardSchema(schemaOrOptions)) return call(request, schemaOrOptions, maybeOptions);
    return call(request, this.callToolResult(), schemaOrOptions);
  }

  /** A Standard Schema over the negotiated era's `tools/call` result validation, rebuilt when the era changes. */
  private callToolResult(): StandardSchemaV1 {
    const codec = this._wireCodec();
    if (this.resultOf?.codec !== codec) {
      this.resultOf = {
        codec,
        schema: {
          "~standard": {
            version: 1,
            vendor: "toolnexus",
            validate(value) {
              const outcome = codec.validateResult("tools/call", value);
              return outcome.ok
                ? { value: outcome.value }
                : { issues: [{ message: outcome.reason === "invalid" ? outcome.message : "not-in-era: tools/call" }] };
            },
          },
        },
      };
    }
    return this.resultOf.schema;
  }
}

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return typeof value === "object" && value !== null && "~standard" in value;
}
