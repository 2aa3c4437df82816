import type { ErrorObject, ValidateFunction } from "ajv";
import type { ToolnexusConfig } from "./schema/index.js";
import type { ConfigIssue } from "./config-error.js";
import { validate } from "./config-validator.generated.js";

// ConfigSchema compiled by Ajv at build time (`npm run config-validator`, Ajv standalone code):
// compiling it at every start-up cost ~150 ms of CPU, and loaded TypeBox and Ajv for it alone.
const validateConfig = validate as unknown as ValidateFunction<ToolnexusConfig>;

/**
 * Validates (and fills defaults into) a parsed config in place. Returns every issue,
 * with `anyOf` noise folded into one message per path.
 */
export function schemaIssues(config: unknown): ConfigIssue[] {
  if (validateConfig(config)) return [];
  const errors = validateConfig.errors ?? [];
  const unions = new Set(errors.filter((e) => e.keyword === "anyOf").map((e) => e.instancePath));
  const seen = new Set<string>();
  const issues: ConfigIssue[] = [];
  for (const e of errors) {
    if (e.keyword !== "anyOf" && unions.has(e.instancePath) && e.keyword === "type") continue;
    const issue = toIssue(e);
    const key = `${issue.pointer} ${issue.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push(issue);
    }
  }
  return issues;
}

function toIssue(e: ErrorObject): ConfigIssue {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === "additionalProperties")
    return { pointer: `${e.instancePath}/${String(params.additionalProperty)}`, message: "is not a known key" };
  if (e.keyword === "required") return { pointer: `${e.instancePath}/${String(params.missingProperty)}`, message: "is required" };
  if (e.keyword === "anyOf") return { pointer: e.instancePath, message: "does not match any allowed form" };
  return { pointer: e.instancePath, message: e.message ?? e.keyword };
}
