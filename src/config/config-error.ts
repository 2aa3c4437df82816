/** One problem in a config file, located by a JSON pointer. */
export interface ConfigIssue {
  pointer: string;
  message: string;
}

/** A config that cannot be used. The message lists every failing path at once. */
export class ConfigError extends Error {
  readonly issues: ConfigIssue[];

  constructor(issues: ConfigIssue[], file?: string) {
    const list = issues.map((i) => `${i.pointer || "/"} ${i.message}`).join("; ");
    super(`config error${file ? ` in ${file}` : ""}: ${list}`);
    this.name = "ConfigError";
    this.issues = issues;
  }
}
