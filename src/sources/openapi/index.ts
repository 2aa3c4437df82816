import type { LoadedConfig } from "../../config/load.js";
import type { Source } from "../../core/source.js";
import { sharedHttpClient } from "../http/shared-client.js";
import { OpenApiSource } from "./openapi-source.js";

/**
 * One source per `openapi:` entry, sharing the http tools' guarded connection pool. Status
 * names it by its prefix, else its spec (made unique with `#n` when two entries collide).
 */
export function openapiSources(loaded: LoadedConfig): Source[] {
  const client = sharedHttpClient(loaded, loaded.config.egress);
  const used = new Map<string, number>();
  return (loaded.config.openapi ?? []).map((cfg) => {
    const base = cfg.prefix || specLabel(cfg.spec);
    const n = (used.get(base) ?? 0) + 1;
    used.set(base, n);
    return new OpenApiSource(cfg, client, loaded.secrets, n > 1 ? `${base}#${n}` : base);
  });
}

/** A spec's name for status and metrics: a URL loses its query, fragment and credentials. */
function specLabel(spec: string): string {
  if (!/^https?:\/\//i.test(spec)) return spec;
  const u = new URL(spec);
  return `${u.origin}${u.pathname}`;
}
