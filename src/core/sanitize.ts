/** Makes any string a valid tool name: every character outside `[a-zA-Z0-9_-]` becomes `_`. */
export function sanitize(s: string): string {
  return s.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/** True when `name` is already a valid tool name. */
export function isValidToolName(name: string): boolean {
  return name.length > 0 && /^[a-zA-Z0-9_-]+$/.test(name);
}
