import { Type, type Static } from "@sinclair/typebox";

// 2^31-1: Node timers overflow past it and would fire at once.
const MAX_TIMER = 2_147_483_647;

const RedisNode = Type.Object(
  {
    host: Type.String({ minLength: 1 }),
    port: Type.Integer({ minimum: 1, maximum: 65535, default: 6379 }),
  },
  { additionalProperties: false },
);

/**
 * `redis:` — shared state for several replicas. Without it everything lives in the process.
 * Exactly one of `url` (one server), `sentinels` + `name` (a Sentinel-managed primary, whose
 * failover the client follows) and `cluster` (a Redis Cluster) says where it is.
 */
export const RedisSection = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, description: "redis:// or rediss:// URL, usually `${REDIS_URL}`." })),
    sentinels: Type.Optional(
      Type.Array(RedisNode, {
        minItems: 1,
        description: "Sentinels that know the primary called `name`; the client asks them where it is.",
      }),
    ),
    name: Type.Optional(Type.String({ minLength: 1, description: "With `sentinels`: the name of the primary they monitor." })),
    cluster: Type.Optional(Type.Array(RedisNode, { minItems: 1, description: "Some nodes of a Redis Cluster; the rest are discovered." })),
    username: Type.Optional(Type.String({ minLength: 1, description: "ACL user of the data nodes (with `sentinels` or `cluster`)." })),
    password: Type.Optional(Type.String({ minLength: 1, description: "Password of the data nodes (with `sentinels` or `cluster`)." })),
    sentinelPassword: Type.Optional(Type.String({ minLength: 1, description: "Password of the sentinels, when they require one." })),
    tls: Type.Optional(
      Type.Boolean({ description: "TLS to the data nodes (and sentinels) with `sentinels` or `cluster`; `rediss://` says it for `url`." }),
    ),
    namespace: Type.Optional(
      Type.String({
        minLength: 1,
        pattern: "^[A-Za-z0-9_.:-]+$",
        default: "toolnexus",
        description:
          "First part of every key and channel: gateways sharing one Redis (a Cluster has no databases) each use their own. Executions' keys carry it as a Cluster hash tag.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** The `redis:` section as the loader fills it in. */
export type RedisConfig = Static<typeof RedisSection>;

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
