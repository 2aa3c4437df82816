import { hash, timingSafeEqual } from "node:crypto";
import picomatch from "picomatch";
import type { ApiKeyConfig } from "../../config/schema/index.js";
import type { Caller } from "./caller.js";
import { surfaceGrantsOf, type BundleGlobs } from "./surface-grants.js";

/**
 * API-key authentication. Keys are held only as SHA-256 digests; a presented key is hashed
 * and compared with every entry in constant time, so timing tells nothing about which matched.
 * A key found valid is remembered as presented, so a client repeating its key (every client)
 * pays one map lookup instead of a SHA-256 per request: the hash was most of what an API-key
 * caller cost over an anonymous one (bench/README.md). Only valid keys enter that map, so it
 * holds at most one entry per configured key, and it goes with this instance on a reload. An
 * invalid key still takes the hash and the constant-time comparison; the map's own lookup
 * compares a presented key's content with a remembered one only when their (seeded) string
 * hashes collide, so it tells nothing about a valid key to someone who does not hold it.
 */
export class ApiKeyAuth {
  private readonly entries: { digest: Buffer; caller: Caller }[];
  private readonly verified = new Map<string, Caller>();

  /** `bundles`: the config's, whose `resources` / `prompts` globs a key granted them sees. */
  constructor(keys: readonly ApiKeyConfig[], bundles?: BundleGlobs) {
    this.entries = keys.map((k) => {
      const allows = k.tools?.length ? picomatch(k.tools) : () => true;
      const surfaceGrants = surfaceGrantsOf({ tools: allows, resources: k.resources, prompts: k.prompts }, k.bundles, bundles);
      return {
        digest: k.sha256 ? Buffer.from(k.sha256, "hex") : sha256(k.key ?? ""),
        // Built once per key: the same object serves every request of that key.
        caller: {
          id: k.id,
          viewKey: `key:${k.id}`,
          kind: "apiKey" as const,
          operator: k.operator === true,
          ...(k.bundles?.length ? { bundles: k.bundles } : {}),
          ...(surfaceGrants ? { surfaceGrants } : {}),
          allows,
        },
      };
    });
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
    const known = this.verified.get(presented);
    if (known) return known;
    const digest = sha256(presented);
    let match: Caller | undefined;
    for (const e of this.entries) {
      if (timingSafeEqual(e.digest, digest) && !match) match = e.caller;
    }
    if (match) this.verified.set(presented, match);
    return match;
  }
}

function sha256(s: string): Buffer {
  return hash("sha256", s, "buffer");
}
