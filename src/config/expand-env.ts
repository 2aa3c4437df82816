import type { ConfigIssue } from "./config-error.js";

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${VAR}` (and `${VAR:-default}`) in every string of a parsed config. A missing
 * variable is an issue naming the key, never an empty string. Every value taken from the
 * environment is added to `secrets` so logs and errors can redact it.
 */
export function expandEnv(value: unknown, env: NodeJS.ProcessEnv, issues: ConfigIssue[], secrets: Set<string>, pointer = ""): unknown {
  if (typeof value === "string") return expandString(value, env, issues, secrets, pointer);
  if (Array.isArray(value)) return value.map((v, i) => expandEnv(v, env, issues, secrets, `${pointer}/${i}`));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = expandEnv(v, env, issues, secrets, `${pointer}/${escape(k)}`);
    return out;
  }
  return value;
}

function expandString(s: string, env: NodeJS.ProcessEnv, issues: ConfigIssue[], secrets: Set<string>, pointer: string): string {
  return s.replace(VAR, (_m, name: string, fallback: string | undefined) => {
    const v = env[name];
    if (v !== undefined && v !== "") {
      secrets.add(v);
      return v;
    }
    if (fallback !== undefined) return fallback;
    issues.push({ pointer, message: `environment variable ${name} is not set` });
    return "";
  });
}

function escape(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}
