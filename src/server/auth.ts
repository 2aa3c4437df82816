import { createHash, timingSafeEqual } from "node:crypto";
import picomatch from "picomatch";
import type { FastifyRequest } from "fastify";
import { ToolnexusError } from "../core/errors.js";
import type { ApiKeyConfig } from "../config/schema/index.js";

/** Who is calling, once authenticated. `allows` says which tools the key may see and use. */
export interface Caller {
  id: string;
  allows(toolName: string): boolean;
}

/** Everyone, when no key is configured. */
export const ANONYMOUS: Caller = { id: "anonymous", allows: () => true };

interface KeyEntry { id: string; digest: Buffer; allows(name: string): boolean }

/**
 * API-key authentication. Keys are held only as SHA-256 digests; a presented key is hashed
 * and compared with every entry in constant time, so timing tells nothing about which matched.
 */
export class ApiKeyAuth {
  private readonly entries: KeyEntry[];

  constructor(keys: readonly ApiKeyConfig[]) {
    this.entries = keys.map((k) => ({
      id: k.id,
      digest: k.sha256 ? Buffer.from(k.sha256, "hex") : sha256(k.key ?? ""),
      allows: k.tools?.length ? picomatch(k.tools) : () => true,
    }));
  }

  /** True when at least one key is configured. */
  get enabled(): boolean {
    return this.entries.length > 0;
  }

  /** The caller a configured key id stands for (`toolnexus openapi --key-id`), if there is one. */
  callerById(id: string): Caller | undefined {
    const e = this.entries.find((k) => k.id === id);
    return e && { id: e.id, allows: e.allows };
  }

  /** True when the request presents a key (valid or not). */
  presentsKey(request: FastifyRequest): boolean {
    return presentedKey(request) !== undefined;
  }

  /** The caller of a request; throws UNAUTHORIZED when keys are configured and none matches. */
  authenticate(request: FastifyRequest): Caller {
    if (!this.enabled) return ANONYMOUS;
    const presented = presentedKey(request);
    if (presented === undefined) throw unauthorized("An API key is required (Authorization: Bearer <key> or X-API-Key)");
    const digest = sha256(presented);
    let match: KeyEntry | undefined;
    for (const e of this.entries) {
      if (timingSafeEqual(e.digest, digest) && !match) match = e;
    }
    if (!match) throw unauthorized("The API key is not valid");
    return { id: match.id, allows: match.allows };
  }
}

function presentedKey(request: FastifyRequest): string | undefined {
  const auth = request.headers.authorization;
  if (auth?.toLowerCase().startsWith("bearer ")) return auth.slice(7).trim() || undefined;
  const header = request.headers["x-api-key"];
  return typeof header === "string" && header !== "" ? header : undefined;
}

function sha256(s: string): Buffer {
  return createHash("sha256").update(s).digest();
}

function unauthorized(detail: string): ToolnexusError {
  return new ToolnexusError("UNAUTHORIZED", detail, { headers: { "www-authenticate": 'Bearer realm="toolnexus"' } });
}
