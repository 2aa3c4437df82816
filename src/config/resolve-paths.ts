import { stat } from "node:fs/promises";
import path from "node:path";
import { glob, isDynamicPattern } from "tinyglobby";
import type { ConfigIssue } from "./config-error.js";
import type { ToolnexusConfig } from "./schema/index.js";

const isUrl = (s: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(s);

/**
 * Makes every path in the config absolute against `baseDir` (the config file's directory)
 * and checks that the ones that must exist do. Plugin globs are expanded to files here.
 */
export async function resolvePaths(config: ToolnexusConfig, baseDir: string): Promise<ConfigIssue[]> {
  const issues: ConfigIssue[] = [];
  const abs = (p: string) => path.resolve(baseDir, p);

  if (config.plugins) {
    const files: string[] = [];
    for (const [i, pattern] of config.plugins.entries()) {
      // A plain path is looked at, not crawled for: globbing an absolute path walks from its root.
      const matches = isDynamicPattern(pattern)
        ? await glob(pattern, { cwd: baseDir, absolute: true, onlyFiles: true })
        : (await isFile(abs(pattern)))
          ? [abs(pattern)]
          : [];
      if (matches.length === 0) issues.push({ pointer: `/plugins/${i}`, message: "not found" });
      files.push(...matches.sort());
    }
    config.plugins = [...new Set(files)];
  }
  if (config.skills) {
    config.skills = config.skills.map(abs);
    for (const [i, dir] of config.skills.entries()) {
      if (!(await isDir(dir))) issues.push({ pointer: `/skills/${i}`, message: "not found" });
    }
  }
  if (config.mcpConfig) {
    config.mcpConfig = abs(config.mcpConfig);
    if (!(await isFile(config.mcpConfig))) issues.push({ pointer: "/mcpConfig", message: "not found" });
  }
  if (typeof config.builtins === "object") {
    config.builtins.workspace = abs(config.builtins.workspace ?? "workspace");
  }
  if (config.audit?.path) config.audit.path = abs(config.audit.path);
  if (config.pinning?.file) config.pinning.file = abs(config.pinning.file);
  if (config.vault?.file) config.vault.file = abs(config.vault.file);
  for (const spec of config.openapi ?? []) {
    if (!isUrl(spec.spec)) spec.spec = abs(spec.spec);
  }
  for (const servers of [config.mcpServers, config.servers, config.mcp]) {
    for (const server of Object.values(servers ?? {})) {
      // stdio servers start in the config's directory unless told otherwise.
      if (server.command !== undefined) server.cwd = abs(server.cwd ?? ".");
    }
  }
  return issues;
}

async function isDir(p: string): Promise<boolean> {
  return stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

async function isFile(p: string): Promise<boolean> {
  return stat(p).then(
    (s) => s.isFile(),
    () => false,
  );
}
