import { Type } from "../http/typebox-lite.js";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Metrics } from "./metrics.js";
import { ProblemResponse as problem } from "../http/schemas/common.js";

/** `GET /metrics`: Prometheus text. Protected like the other routes unless `metrics.public`. */
export const metricsRoute: FastifyPluginAsyncTypebox<{ metrics: Metrics; scrub: (s: string) => string }> = async (
  app,
  { metrics, scrub },
) => {
  app.get(
    "/metrics",
    {
      // A scraper polls it: no span per scrape. Operators only, unless `metrics.public` (read per request: a reload applies).
      config: { access: "operator", traced: false, publicWhen: (config) => config.metrics?.public === true },
      schema: {
        operationId: "metrics",
        summary: "Prometheus metrics",
        tags: ["service"],
        response: {
          200: { description: "Prometheus text exposition", content: { "text/plain": { schema: Type.String() } } },
          "4xx": problem,
        },
      },
    },
    async (_request, reply) => reply.type(metrics.registry.contentType).send(scrub(await metrics.registry.metrics())),
  );
};
