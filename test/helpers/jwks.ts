import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload, type CryptoKey } from "jose";

/** One signing key of the test identity provider. */
export interface TestKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

/** A local identity provider: a JWKS endpoint on a random port and a token signer. */
export interface TestIdp {
  issuer: string;
  jwksUri: string;
  /** JWKS requests served so far. */
  fetches: number;
  key(kid: string, alg?: string): Promise<TestKey>;
  /** What the endpoint serves from now on. */
  publish(keys: TestKey[]): void;
  /** "up" serves the JWKS, "down" answers 500, "slow" never answers. */
  mode: "up" | "down" | "slow";
  /** `expiresIn: false` leaves `exp` out; `issuedAt` sets `iat` (seconds) instead of now. */
  sign(
    claims: JWTPayload,
    key: TestKey,
    opts?: { expiresIn?: string | number | false; issuedAt?: number; audience?: string; issuer?: string },
  ): Promise<string>;
  close(): Promise<void>;
}

/** Starts the JWKS endpoint on 127.0.0.1 (empty until {@link TestIdp.publish}). */
export async function startIdp(): Promise<TestIdp> {
  let published: JWK[] = [];
  const hung: (() => void)[] = [];
  const server = createServer((req, res) => {
    idp.fetches++;
    if (idp.mode === "slow") return void hung.push(() => res.destroy());
    if (idp.mode === "down") return void res.writeHead(500).end("down");
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: published }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const idp: TestIdp = {
    issuer: `${base}/`,
    jwksUri: `${base}/.well-known/jwks.json`,
    fetches: 0,
    mode: "up",
    async key(kid, alg = "RS256") {
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
    },
    publish(keys) {
      published = keys.map((k) => k.jwk);
    },
    sign(claims, key, opts = {}) {
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT" })
        .setIssuer(opts.issuer ?? idp.issuer)
        .setAudience(opts.audience ?? "toolnexus")
        .setIssuedAt(opts.issuedAt);
      if (opts.expiresIn !== false) jwt.setExpirationTime(opts.expiresIn ?? "1h");
      return jwt.sign(key.privateKey);
    },
    async close() {
      for (const h of hung) h();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  return idp;
}

/** The `auth.jwt` config for a test identity provider. */
export function jwtConfig(idp: TestIdp, extra: Record<string, unknown> = {}) {
  return {
    issuer: idp.issuer,
    audience: "toolnexus",
    jwksUri: idp.jwksUri,
    clockTolerance: 0,
    requireExp: true,
    groupsClaim: "groups",
    jwksTimeoutMs: 500,
    ...extra,
  };
}
