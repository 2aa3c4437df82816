import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/schema/index.js";
// @ts-expect-error a plain ES module of scripts/ without types
import { configValidatorSource } from "../../scripts/lib/config-validator.mjs";

describe("the precompiled config validator", () => {
  it("is the Ajv standalone code of the TypeBox ConfigSchema (run `npm run config-validator` after changing the schema)", () => {
    const committed = readFileSync(path.resolve(import.meta.dirname, "../../src/config/config-validator.generated.ts"), "utf8");
    expect(committed === (configValidatorSource(ConfigSchema) as string)).toBe(true);
  });
});
