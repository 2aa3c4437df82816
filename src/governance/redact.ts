/** Key names whose values are masked in `redacted` audit arguments, whatever the value. */
const SECRET_KEY = /pass(word|wd|phrase)?|secret|token|api[-_]?key|auth(orization)?|credential|private[-_]?key|cookie|session/i;

/** Values that look like credentials wherever they sit: JWTs, bearer headers, well-known key prefixes, PEM keys. */
const SECRET_VALUE = [
  /^eyJ[\w-]+\.[\w-]+\.[\w-]*$/, // a JWT
  /^bearer\s+\S+/i,
  /^(sk|pk|rk)[-_][\w-]{16,}$/, // OpenAI/Stripe-style keys
  /^(ghp|gho|ghu|ghs|ghr|github_pat)_\w{20,}$/,
  /^xox[abprs]-[\w-]{10,}$/, // Slack
  /^AKIA[0-9A-Z]{16}$/, // AWS access key id
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

/** What a masked value is replaced with. */
const MASK = "[redacted]";

/**
 * A copy of `value` with secret-looking values masked: every value under a key that names a
 * credential (or one of `extraKeys`, compared case-insensitively) and every string that looks
 * like a credential. The shape stays, so an auditor still sees which arguments were sent.
 */
export function redactArguments(value: unknown, extraKeys: readonly string[] = []): unknown {
  const extra = new Set(extraKeys.map((k) => k.toLowerCase()));
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return SECRET_VALUE.some((re) => re.test(v)) ? MASK : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object") return v;
    const out: Record<string, unknown> = {};
    for (const [k, inner] of Object.entries(v)) out[k] = SECRET_KEY.test(k) || extra.has(k.toLowerCase()) ? MASK : walk(inner);
    return out;
  };
  return walk(value);
}
