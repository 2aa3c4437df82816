import type { FieldError } from "../errors.js";

/** Bounds on the shape of a call's arguments, checked before schema validation and before any tool. */
export interface ShapeLimits {
  /** Deepest nesting of objects and arrays (the arguments object itself is level 1). */
  maxDepth: number;
  /** Most values (objects, arrays, scalars) in total. */
  maxNodes: number;
}

/**
 * Generous for any real tool, yet far below what makes a recursive `JSON.stringify` (MCP and
 * HTTP transports) or a schema validator overflow the stack: ~5,000 levels did.
 */
export const DEFAULT_SHAPE_LIMITS: ShapeLimits = { maxDepth: 64, maxNodes: 100_000 };

interface Frame {
  value: unknown;
  depth: number;
  parent?: Frame;
  key?: string;
}

/**
 * The first place where `value` exceeds `limits`, as a field error with a JSON pointer, or
 * undefined. Iterative, so the check itself cannot overflow the stack it protects. Scalars are
 * counted where they stand; only objects and arrays take a frame (this runs on every call).
 */
export function shapeError(value: unknown, limits: ShapeLimits = DEFAULT_SHAPE_LIMITS, base = ""): FieldError | undefined {
  const root: Frame = { value, depth: 1 };
  if (limits.maxNodes < 1) return tooMany(root, limits, base);
  if (typeof value !== "object" || value === null) return undefined;
  const stack: Frame[] = [root];
  let nodes = 1;
  for (let f = stack.pop(); f !== undefined; f = stack.pop()) {
    if (f.depth > limits.maxDepth) return { pointer: base + pointerOf(f), message: `nests deeper than ${limits.maxDepth} levels` };
    const v = f.value as Record<string, unknown> | unknown[];
    const keys = Array.isArray(v) ? undefined : Object.keys(v);
    const length = keys ? keys.length : (v as unknown[]).length;
    for (let i = 0; i < length; i++) {
      const child = keys ? (v as Record<string, unknown>)[keys[i]!] : (v as unknown[])[i];
      const isContainer = typeof child === "object" && child !== null;
      if (++nodes <= limits.maxNodes && !isContainer) continue;
      const frame: Frame = { value: child, depth: f.depth + 1, parent: f, key: keys ? keys[i]! : String(i) };
      if (nodes > limits.maxNodes) return tooMany(frame, limits, base);
      stack.push(frame);
    }
  }
  return undefined;
}

function tooMany(f: Frame, limits: ShapeLimits, base: string): FieldError {
  return { pointer: base + pointerOf(f), message: `holds more than ${limits.maxNodes} values in all` };
}

function pointerOf(f: Frame): string {
  const parts: string[] = [];
  for (let c: Frame | undefined = f; c?.key !== undefined; c = c.parent) parts.push(c.key.replace(/~/g, "~0").replace(/\//g, "~1"));
  return parts
    .reverse()
    .map((p) => `/${p}`)
    .join("");
}
