import { randomUUID } from "node:crypto";
import { importJWK, importPKCS8, SignJWT, type CryptoKey, type JWK, type KeyObject } from "jose";
import type { ClientAuth } from "oauth4webapi";

/** `upstreamAuth.privateKeyJwt`: the key (PKCS#8 PEM or a JWK as JSON), its id and algorithm. */
export interface PrivateKeyJwtConfig {
  key: string;
  kid?: string;
  alg?: string;
}

// An assertion is used once, at once: a short life limits a replay of an intercepted one.
const ASSERTION_LIFETIME_S = 60;

/**
 * Client authentication by `private_key_jwt` (RFC 7523 §2.2), signed with jose: a fresh
 * assertion per request, `iss` = `sub` = the client id, `aud` = the token endpoint (what Okta
 * and Entra ID require, and Keycloak accepts beside its issuer). The key is imported once.
 */
export function privateKeyJwt(cfg: PrivateKeyJwtConfig): ClientAuth {
  let imported: Promise<{ key: CryptoKey | KeyObject | Uint8Array; alg: string; kid?: string }> | undefined;
  return async (as, client, body) => {
    imported ??= importKey(cfg);
    const { key, alg, kid } = await imported;
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg, typ: "JWT", ...(kid ? { kid } : {}) })
      .setIssuer(client.client_id)
      .setSubject(client.client_id)
      .setAudience(String(as.token_endpoint ?? as.issuer))
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime(`${ASSERTION_LIFETIME_S}s`)
      .sign(key);
    body.set("client_id", client.client_id);
    body.set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    body.set("client_assertion", assertion);
  };
}

async function importKey(cfg: PrivateKeyJwtConfig): Promise<{ key: CryptoKey | KeyObject | Uint8Array; alg: string; kid?: string }> {
  const text = cfg.key.trim();
  if (text.startsWith("{")) {
    const jwk = JSON.parse(text) as JWK;
    const alg = cfg.alg ?? jwk.alg ?? "RS256";
    const kid = cfg.kid ?? jwk.kid;
    return { key: await importJWK(jwk, alg), alg, ...(kid ? { kid } : {}) };
  }
  const alg = cfg.alg ?? "RS256";
  return { key: await importPKCS8(text, alg), alg, ...(cfg.kid ? { kid: cfg.kid } : {}) };
}
