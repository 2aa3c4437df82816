import { afterEach } from "vitest";
import { A2aSource, type A2aSourceOptions } from "../../../src/sources/a2a/a2a-source.js";
import type { A2aAgentConfig } from "../../../src/config/schema/index.js";
import type { Logger, Tool } from "../../../src/core/types.js";
import { startAgent, type AgentServer, type AgentServerOptions } from "../../fixtures/a2a/agent-server.js";
import { eventually } from "../../helpers/wait.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

/** A started test agent, closed after the test. */
export async function agent(opts: AgentServerOptions = {}): Promise<AgentServer> {
  const a = await startAgent(opts);
  open.push(a);
  return a;
}

/** Log lines captured as `[level, object, message]`. */
export type LogLine = [string, unknown, string | undefined];

/** A Logger that records every line. */
export function capturingLogger(lines: LogLine[] = []): Logger & { lines: LogLine[] } {
  const at = (level: string) => (obj: object | string, msg?: string) => void lines.push([level, obj, msg]);
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** Builds an A2aSource for `cfg` (fast polling by default), closed after the test. */
export async function loadSource(cfg: A2aAgentConfig, opts: A2aSourceOptions = {}, logger: Logger = capturingLogger()): Promise<A2aSource> {
  const src = new A2aSource("peer", { pollEvery: 20, ...cfg }, opts);
  open.push(src);
  await src.build({ logger, onToolsChanged() {} });
  return src;
}

/** The tool of that name, or a failed assertion naming what exists. */
export function toolNamed(src: A2aSource, name: string): Tool {
  const t = src.tools().find((x) => x.name === name);
  if (!t)
    throw new Error(
      `no tool ${name}; have ${src
        .tools()
        .map((x) => x.name)
        .join(", ")} (${JSON.stringify(src.status())})`,
    );
  return t;
}

/** Resolves once `check` is true, polling every 10 ms; rejects after `ms`. */
export async function until(check: () => boolean, ms = 5_000): Promise<void> {
  await eventually(check, { timeoutMs: ms });
}
