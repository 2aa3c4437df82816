import { Type } from "@sinclair/typebox";

/**
 * `telemetry:` — OpenTelemetry traces over OTLP/HTTP. Also on when OTEL_EXPORTER_OTLP_ENDPOINT
 * is set; the standard OTEL_* variables win over these keys.
 */
export const TelemetrySection = Type.Object(
  {
    otlp: Type.Optional(
      Type.Object(
        {
          endpoint: Type.String({
            pattern: "^[hH][tT][tT][pP][sS]?://",
            description: "Collector base URL; traces go to <endpoint>/v1/traces.",
          }),
          protocol: Type.Optional(
            Type.Union([Type.Literal("http/protobuf"), Type.Literal("http/json")], { description: "Default http/protobuf." }),
          ),
          headers: Type.Optional(
            Type.Record(Type.String(), Type.String(), { description: "Sent with every export; use ${VAR} for tokens." }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    serviceName: Type.Optional(Type.String({ minLength: 1, description: "Default toolnexus (OTEL_SERVICE_NAME wins)." })),
  },
  { additionalProperties: false },
);
