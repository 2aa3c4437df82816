/**
 * `value` with every secret `scrub` knows replaced wherever it hides (a key, a nested string),
 * by scrubbing its JSON text. For what leaves the service as JSON: a status body, a listing,
 * a problem, a result's metadata.
 */
export function scrubDeep<T>(value: T, scrub: (text: string) => string): T {
  return JSON.parse(scrub(JSON.stringify(value))) as T;
}
