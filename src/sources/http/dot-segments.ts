import { ToolnexusError } from "../../core/errors.js";

/** A path segment the URL parser resolves away: `.` or `..`, percent-encoded or not. */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * True when the segment is a dot segment, or becomes one once an upstream or proxy decodes
 * it again (a value "%2e%2e" is sent as "%252e%252e").
 */
function isDotSegment(segment: string): boolean {
  let s = segment;
  for (let i = 0; i < 4; i++) {
    if (DOT_SEGMENT.test(s)) return true;
    let next: string;
    try {
      next = decodeURIComponent(s);
    } catch {
      return false;
    }
    if (next === s) return false;
    s = next;
  }
  return DOT_SEGMENT.test(s);
}

/** The names inside `{…}` placeholders of one template segment. */
const NAMES = /\{([^{}/]+)\}/g;

/**
 * The placeholders that, filled, turn a whole path segment into `.` or `..`. The URL parser
 * resolves those (percent-encoded too), so `/users/{id}/profile` with `id: ".."` would send
 * `/profile`: a request the declaration never allowed. Values an upstream would decode into
 * one (`%2e%2e`) are refused as well. `template` and `filled` are the path
 * before and after filling; filled values are percent-encoded, so they add no `/` and the
 * segments of both line up.
 */
export function dotSegmentPlaceholders(template: string, filled: string): string[] {
  const before = template.split(/[?#]/)[0]?.split("/") ?? [];
  const after = filled.split(/[?#]/)[0]?.split("/") ?? [];
  const names: string[] = [];
  after.forEach((seg, i) => {
    const tpl = before[i] ?? "";
    if (tpl !== seg && isDotSegment(seg)) for (const m of tpl.matchAll(NAMES)) names.push(m[1] as string);
  });
  return [...new Set(names)];
}

/**
 * INVALID_ARGUMENTS (422, thrown before anything is sent) for arguments that would climb out
 * of the declared path; `argOf` maps a placeholder to its argument name.
 */
export function dotSegmentError(names: readonly string[], argOf: (name: string) => string = (n) => n): ToolnexusError {
  const args = names.map(argOf);
  const message = 'cannot be "." or "..": it would send the request to another path';
  return new ToolnexusError(
    "INVALID_ARGUMENTS",
    `${args.length > 1 ? "Arguments" : "Argument"} ${args.map((a) => `"${a}"`).join(", ")} ${message}`,
    {
      errors: args.map((a) => ({ pointer: `/${a.replace(/~/g, "~0").replace(/\//g, "~1")}`, message })),
    },
  );
}
