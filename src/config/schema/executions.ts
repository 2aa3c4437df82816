import { Type, type Static } from "@sinclair/typebox";

// 2^31-1: Node timers overflow past it and would fire at once.
const MAX_TIMER = 2_147_483_647;

/** `redis:` — shared state for several replicas. Without it everything lives in the process. */
export const RedisSection = Type.Object(
  {
    url: Type.String({ minLength: 1, description: "redis:// or rediss:// URL, usually `${REDIS_URL}`." }),
  },
  { additionalProperties: false },
);

/** `executions:` — asynchronous calls. */
export const ExecutionsSection = Type.Object(
  {
    maxTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: MAX_TIMER,
      default: 3_600_000,
      description: "Upper bound of an execution's timeoutMs.",
    }),
    retentionMs: Type.Integer({
      minimum: 1,
      maximum: MAX_TIMER,
      default: 86_400_000,
      description: "How long a finished execution stays readable.",
    }),
    maxActivePerCaller: Type.Integer({ minimum: 1, default: 100, description: "Queued or running executions per caller; beyond it 429." }),
    maxRetainedPerCaller: Type.Integer({
      minimum: 1,
      default: 1000,
      description:
        "Finished executions kept per caller (in process or on Redis); past it those that finished first are dropped before their retention ends.",
    }),
    lostAfterMs: Type.Integer({
      minimum: 200,
      maximum: MAX_TIMER,
      default: 30_000,
      description: "With Redis: an execution whose replica died is failed with EXECUTION_LOST within this time.",
    }),
  },
  { additionalProperties: false, default: {} },
);

export type ExecutionsConfig = Static<typeof ExecutionsSection>;
