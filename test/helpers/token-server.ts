import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWK, type JWTPayload } from "jose";

/** One token-endpoint request as the server saw it. */
interface ExchangeRequest {
  form: Record<string, string>;
  authorization?: string;
  contentType?: string;
}

/**
 * "ok" exchanges; "fail" answers 500 (not OAuth JSON); "refuse" answers 400 invalid_grant;
 * "hang" never answers; "wrong-aud" issues a token for another audience.
 */
type Mode = "ok" | "fail" | "refuse" | "hang" | "wrong-aud";

/** A real local authorization server: JWKS, metadata, and an RFC 8693 token endpoint that checks its form. */
export interface TokenServer {
  issuer: string;
  jwksUri: string;
  tokenEndpoint: string;
  /** Token-endpoint requests so far (also refused ones). */
  requests: ExchangeRequest[];
  mode: Mode;
  /** Which metadata document it serves: "oidc" (openid-configuration) or "oauth2" (RFC 8414 only). */
  discovery: "oidc" | "oauth2";
  /** expires_in of the tokens it issues. */
  expiresIn: number;
  /** The public JWK a private_key_jwt client signs with; assertions are checked against it. */
  clientKeys: JWK[];
  /** A caller's access token, for audience `toolnexus` by default. */
  sign(claims: JWTPayload, opts?: { audience?: string; expiresIn?: string }): Promise<string>;
  /** The claims of a token it issued (verified with its key). */
  verify(token: string): Promise<JWTPayload>;
  close(): Promise<void>;
}

export const CLIENT_ID = "toolnexus-gateway";
export const CLIENT_SECRET = "gateway-client-secret-0123456789";
const GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS = "urn:ietf:params:oauth:token-type:access_token";

/** `auth.jwt` of a gateway whose callers present tokens of `ts` (audience `toolnexus`, groups from `groups`). */
export function jwtAuthOf(ts: TokenServer) {
  return {
    issuer: ts.issuer,
    audience: "toolnexus",
    jwksUri: ts.jwksUri,
    clockTolerance: 0,
    requireExp: true,
    groupsClaim: "groups",
    jwksTimeoutMs: 2000,
  };
}

/** Starts the server on 127.0.0.1; its issuer has no trailing slash. */
export async function startTokenServer(): Promise<TokenServer> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: "as1", alg: "RS256", use: "sig" };
  const keys = createLocalJWKSet({ keys: [jwk] });
  const hung: (() => void)[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0];
      const json = (status: number, body: unknown) =>
        res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));
      if (path === "/jwks") return json(200, { keys: [jwk] });
      const meta = { issuer: ts.issuer, token_endpoint: ts.tokenEndpoint, jwks_uri: ts.jwksUri };
      if (path === "/.well-known/openid-configuration") return ts.discovery === "oidc" ? json(200, meta) : json(404, {});
      if (path === "/.well-known/oauth-authorization-server") return json(200, meta);
      if (path !== "/token" || req.method !== "POST") return json(404, {});
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
      ts.requests.push({
        form,
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        ...(req.headers["content-type"] ? { contentType: req.headers["content-type"] } : {}),
      });
      if (ts.mode === "hang") return void hung.push(() => res.destroy());
      if (ts.mode === "fail") return void res.writeHead(500, { "content-type": "text/html" }).end("<h1>boom</h1>");
      if (ts.mode === "refuse") return json(400, { error: "invalid_grant", error_description: "subject token refused" });
      void exchange(form, req.headers.authorization).then(
        (body) => json(200, body),
        (err: Error) => json(400, { error: "invalid_request", error_description: err.message }),
      );
    });
  });

  /** Checks the RFC 8693 form and the client, then issues a token for the requested audience. */
  async function exchange(form: Record<string, string>, authorization: string | undefined) {
    if (form.grant_type !== GRANT) throw new Error("grant_type");
    if (form.subject_token_type !== ACCESS) throw new Error("subject_token_type");
    await authenticate(form, authorization);
    const { payload: subject } = await jwtVerify(form.subject_token ?? "", keys, { issuer: ts.issuer });
    const audience = form.audience ?? form.resource;
    if (!audience) throw new Error("no audience");
    return {
      access_token: await new SignJWT({ scope: form.scope ?? "", azp: CLIENT_ID })
        .setProtectedHeader({ alg: "RS256", kid: "as1", typ: "at+jwt" })
        .setIssuer(ts.issuer)
        .setSubject(String(subject.sub))
        .setAudience(ts.mode === "wrong-aud" ? "someone-else" : audience)
        .setIssuedAt()
        .setExpirationTime(Math.floor(Date.now() / 1000) + ts.expiresIn)
        .sign(privateKey),
      issued_token_type: ACCESS,
      token_type: "Bearer",
      expires_in: ts.expiresIn,
    };
  }

  /** client_secret_basic, client_secret_post, or a private_key_jwt assertion for this token endpoint. */
  async function authenticate(form: Record<string, string>, authorization: string | undefined) {
    if (authorization?.startsWith("Basic ")) {
      const [id, secret] = Buffer.from(authorization.slice(6), "base64").toString("utf8").split(":").map(decodeURIComponent);
      if (id !== CLIENT_ID || secret !== CLIENT_SECRET) throw new Error("client");
      return;
    }
    if (form.client_assertion) {
      const { payload } = await jwtVerify(form.client_assertion, createLocalJWKSet({ keys: ts.clientKeys }), {
        issuer: CLIENT_ID,
        subject: CLIENT_ID,
        audience: ts.tokenEndpoint,
      });
      if (!payload.jti) throw new Error("jti");
      return;
    }
    if (form.client_id !== CLIENT_ID || form.client_secret !== CLIENT_SECRET) throw new Error("client");
  }

  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ts: TokenServer = {
    issuer: base,
    jwksUri: `${base}/jwks`,
    tokenEndpoint: `${base}/token`,
    requests: [],
    mode: "ok",
    discovery: "oidc",
    expiresIn: 300,
    clientKeys: [],
    sign: (claims, opts = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", kid: "as1", typ: "JWT" })
        .setIssuer(base)
        .setAudience(opts.audience ?? "toolnexus")
        .setIssuedAt()
        .setExpirationTime(opts.expiresIn ?? "1h")
        .sign(privateKey as CryptoKey),
    async verify(token) {
      return (await jwtVerify(token, keys, { issuer: base })).payload;
    },
    async close() {
      for (const h of hung) h();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  return ts;
}
