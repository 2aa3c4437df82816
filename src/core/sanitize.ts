/** Makes any string a valid tool name: every character outside `[a-zA-Z0-9_-]` becomes `_`. */
export function sanitize(s: string): string {
  return s.replace(/[^a-zA-Z0-9_-]/g, "_");
}
