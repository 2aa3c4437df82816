import type { LoadedConfig } from "../../config/load.js";
import type { A2aAgentConfig } from "../../config/schema/index.js";
import { DisabledSource, type Source } from "../../core/source.js";
import { A2aSource } from "./a2a-source.js";

export { A2aSource } from "./a2a-source.js";

/** MCP `isEnabled` precedence: `disabled: true` wins, else `enabled: false` disables. */
export function isAgentEnabled(cfg: A2aAgentConfig): boolean {
  return cfg.disabled !== true && cfg.enabled !== false;
}

/** One source per `agents:` entry, named by its key; disabled entries show as `disabled`. */
export function a2aSources({ config, secrets }: LoadedConfig): Source[] {
  return Object.entries(config.agents ?? {}).map(([id, cfg]) =>
    isAgentEnabled(cfg)
      ? new A2aSource(id, cfg, { ...(config.egress ? { egress: config.egress } : {}), secrets })
      : new DisabledSource("a2a", id, "disabled in config"),
  );
}
