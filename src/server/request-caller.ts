import type { Caller } from "./auth/index.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The authenticated caller (anonymous when auth is off). Set by the auth hook. */
    caller: Caller;
  }
}
