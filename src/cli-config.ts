// The config a command names and the toolkit it describes, shared by the commands of cli.ts and
// its cli-*.ts files; the config loader and the sources load only when a command asks for them.
import type { LoadedConfig } from "./config/load.js";
import { ConfigError } from "./config/config-error.js";

/** The config at --config (`explicit`), else TOOLNEXUS_CONFIG; a ConfigError when neither names one. */
export async function loadCliConfig(explicit: string | undefined): Promise<LoadedConfig> {
  // Imported here, after the compile cache is on (static imports compile before any code runs).
  const { configPathFrom, loadConfig } = await import("./config/load.js");
  const p = configPathFrom(explicit);
  if (!p) throw new ConfigError([{ pointer: "", message: "no config given: pass --config PATH or set TOOLNEXUS_CONFIG" }]);
  return loadConfig(p);
}

/** The toolkit of `loaded`, its sources started, logging to stderr (TOOLNEXUS_LOG_LEVEL, else warn). */
export async function toolkitOf(loaded: LoadedConfig) {
  const [{ createToolkit }, { default: pino }] = await Promise.all([import("./create-toolkit.js"), import("pino")]);
  return createToolkit(loaded, { logger: pino({ level: process.env.TOOLNEXUS_LOG_LEVEL ?? "warn" }, pino.destination(2)) });
}
