import type { Caller } from "./index.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The authenticated caller (anonymous when auth is off). Set by the auth hook. */
    caller: Caller;
  }
}
