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
 * undefined. Iterative, so the check itself cannot overflow the stack it protects.
 */
export function shapeError(value: unknown, limits: ShapeLimits = DEFAULT_SHAPE_LIMITS, base = ""): FieldError | undefined {
  const stack: Frame[] = [{ value, depth: 1 }];
  let nodes = 0;
  for (let f = stack.pop(); f !== undefined; f = stack.pop()) {
    if (++nodes > limits.maxNodes) return { pointer: base + pointerOf(f), message: `holds more than ${limits.maxNodes} values in all` };
    const v = f.value;
    if (typeof v !== "object" || v === null) continue;
    if (f.depth > limits.maxDepth) return { pointer: base + pointerOf(f), message: `nests deeper than ${limits.maxDepth} levels` };
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    for (const [key, child] of entries) stack.push({ value: child, depth: f.depth + 1, parent: f, key });
  }
  return undefined;
}

function pointerOf(f: Frame): string {
  const parts: string[] = [];
  for (let c: Frame | undefined = f; c?.key !== undefined; c = c.parent) parts.push(c.key.replace(/~/g, "~0").replace(/\//g, "~1"));
  return parts
    .reverse()
    .map((p) => `/${p}`)
    .join("");
}
