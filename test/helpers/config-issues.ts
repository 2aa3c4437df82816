import { expect } from "vitest";
import { ConfigError } from "../../src/config/config-error.js";
import { normalizeConfig } from "../../src/config/load.js";

/** The message of the ConfigError `p` rejects with (fails the test when it resolves or rejects otherwise). */
export async function configErrorOf(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return (err as ConfigError).message;
}

/** The issues `normalizeConfig` finds in `raw`, as its ConfigError says them. */
export const issuesOf = (raw: unknown): Promise<string> => configErrorOf(normalizeConfig(raw));
