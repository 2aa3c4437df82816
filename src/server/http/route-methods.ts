import type { FastifyInstance } from "fastify";

/**
 * The methods each registered path answers, so a request for a known path with another
 * method gets 405 with `Allow` instead of 404 (RFC 9110 §15.5.6). Fed by an onRoute hook.
 */
export class RouteMethods {
  private readonly routes: { pattern: RegExp; methods: Set<string> }[] = [];

  /** Records every route registered on `app` from now on. */
  constructor(app: FastifyInstance) {
    app.addHook("onRoute", (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const pattern = toPattern(route.url);
      const known = this.routes.find((r) => r.pattern.source === pattern.source);
      if (known) for (const m of methods) known.methods.add(m);
      else this.routes.push({ pattern, methods: new Set(methods) });
    });
  }

  /** The methods `path` answers (HEAD wherever GET is), sorted; empty for an unknown path. */
  allowed(path: string): string[] {
    const out = new Set<string>();
    for (const r of this.routes) if (r.pattern.test(path)) for (const m of r.methods) out.add(m);
    if (out.has("GET")) out.add("HEAD");
    return [...out].sort();
  }
}

function toPattern(url: string): RegExp {
  const body = url
    .split("/")
    .map((seg) => {
      if (seg === "*") return ".*";
      // A parametric segment (":name", possibly with a regexp) matches any one segment.
      if (seg.startsWith(":")) return "[^/]+";
      return seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return new RegExp(`^${body}/?$`);
}
