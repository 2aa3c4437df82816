import os from "node:os";
import type { LoadedConfig } from "./config/load.js";
import type { Toolkit } from "./core/toolkit.js";
import type { Logger } from "./core/types.js";
import { FilePinStore } from "./governance/pin-file-store.js";
import { pinOf, reviewCatalog } from "./governance/pin-review.js";
import type { PinStore } from "./governance/pin-store.js";
import { definitionByKey, surfaceDefinitions } from "./governance/surface-definitions.js";

/** What `toolnexus pins` needs of the CLI: the config's toolkit, a logger and its output. */
export interface PinsCli {
  toolkit(): Promise<Toolkit>;
  logger: Logger;
  print(text: string, code?: number): number;
}

/**
 * `toolnexus pins list|approve <tool>|reset <tool>|reset --all`: the pins of a config's store
 * (pinning.file, or Redis with `redis:`), compared with what its sources serve now. A running
 * service sees a change at once with Redis, within a second with a file.
 */
export async function pinsCommand(
  loaded: LoadedConfig,
  sub: string | undefined,
  tool: string | undefined,
  o: { json: boolean; all: boolean },
  cli: PinsCli,
): Promise<number> {
  const store = await storeOf(loaded, cli.logger);
  if (!store)
    return cli.print(
      "error: pins live in the memory of each running server (no pinning.file, no redis:): use POST /admin/pins/{tool}/approve",
      2,
    );
  try {
    switch (sub) {
      case "list":
        return await list(loaded, store, o.json, cli);
      case "approve": {
        if (!tool) return cli.print("error: toolnexus pins approve <tool>", 2);
        const tk = await cli.toolkit();
        try {
          const found = definitionByKey(tk, tool);
          if (!found)
            return cli.print(
              `error: no tool (or prompt:<name>, resourceTemplate:<uriTemplate>) "${tool}" in the catalog of this config`,
              2,
            );
          const pin = pinOf(found, new Date(), `cli:${os.userInfo().username}`);
          await store.save(tool, pin);
          return cli.print(`approved ${tool} ${pin.digest}`);
        } finally {
          await tk.close();
        }
      }
      case "reset":
        if (!tool && !o.all) return cli.print("error: toolnexus pins reset <tool> (or --all to forget every pin)", 2);
        await store.remove(o.all ? undefined : tool);
        return cli.print(o.all ? "every pin forgotten" : `pin of ${tool} forgotten`);
      default:
        return cli.print("error: toolnexus pins list|approve <tool>|reset <tool>|reset --all", 2);
    }
  } finally {
    await store.close?.();
  }
}

async function list(loaded: LoadedConfig, store: PinStore, json: boolean, cli: PinsCli): Promise<number> {
  const pins = await store.load();
  const tk = await cli.toolkit();
  try {
    const more = surfaceDefinitions(tk.surface());
    const policy = {
      mode: loaded.config.pinning.mode === "off" ? "warn" : loaded.config.pinning.mode,
      newTools: loaded.config.pinning.newTools,
    } as const;
    const { pending } = reviewCatalog(tk.tools(), pins, policy, new Date(), more);
    const served = new Set([...tk.tools().map((t) => t.name), ...more.map((m) => m.key)]);
    const rows = [...new Set([...pins.keys(), ...served])].sort().map((name) => {
      const p = pending.get(name);
      const state = p ? p.kind : !served.has(name) ? "absent" : "pinned";
      return { tool: name, state, pinned: pins.get(name)?.digest, ...(p ? { current: p.current, changes: p.changes } : {}) };
    });
    if (json) return cli.print(JSON.stringify({ store: store.describe, tools: rows }, null, 2));
    for (const r of rows) {
      cli.print(`${r.tool.padEnd(32)} ${r.state.padEnd(8)} ${r.pinned ?? ""}`);
      for (const c of r.changes ?? []) cli.print(`    ${c.path} ${c.change}`);
    }
    return 0;
  } finally {
    await tk.close();
  }
}

async function storeOf(loaded: LoadedConfig, logger: Logger): Promise<PinStore | undefined> {
  const { redis, pinning } = loaded.config;
  if (redis) {
    const [{ connectRedis }, { RedisPinStore }] = await Promise.all([
      import("./server/redis/connect-redis.js"),
      import("./governance/pin-redis-store.js"),
    ]);
    return new RedisPinStore(connectRedis(redis, logger as Parameters<typeof connectRedis>[1], { name: "pins-cli" }), pinning.key);
  }
  return pinning.file ? new FilePinStore(pinning.file) : undefined;
}
