import { hash, timingSafeEqual } from "node:crypto";
import picomatch from "picomatch";
import type { ApiKeyConfig } from "../../config/schema/index.js";
import type { Caller } from "./caller.js";

/**
 * API-key authentication. Keys are held only as SHA-256 digests; a presented key is hashed
 * and compared with every entry in constant time, so timing tells nothing about which matched.
 * The hash is the one-shot `crypto.hash`: a `createHash` object per request cost about twice
 * as much, and was most of what an API-key caller cost over an anonymous one (bench/README.md).
 */
export class ApiKeyAuth {
  private readonly entries: { digest: Buffer; caller: Caller }[];

  constructor(keys: readonly ApiKeyConfig[]) {
    this.entries = keys.map((k) => ({
      digest: k.sha256 ? Buffer.from(k.sha256, "hex") : sha256(k.key ?? ""),
      // Built once per key: the same object serves every request of that key.
      caller: {
        id: k.id,
        viewKey: `key:${k.id}`,
        kind: "apiKey",
        operator: k.operator === true,
        ...(k.bundles?.length ? { bundles: k.bundles } : {}),
        allows: k.tools?.length ? picomatch(k.tools) : () => true,
      },
    }));
  }

  /** True when at least one key is configured. */
  get enabled(): boolean {
    return this.entries.length > 0;
  }

  /** The caller a configured key id stands for (`toolnexus openapi --key-id`), if there is one. */
  callerById(id: string): Caller | undefined {
    return this.entries.find((e) => e.caller.id === id)?.caller;
  }

  /** The caller whose key this is, or undefined. */
  match(presented: string): Caller | undefined {
    const digest = sha256(presented);
    let match: Caller | undefined;
    for (const e of this.entries) {
      if (timingSafeEqual(e.digest, digest) && !match) match = e.caller;
    }
    return match;
  }
}

function sha256(s: string): Buffer {
  return hash("sha256", s, "buffer");
}
