import { exportJWK, exportPKCS8, generateKeyPair } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isToolnexusError } from "../../src/core/errors.js";
import type { TokenExchangeAuth } from "../../src/core/upstream-auth.js";
import { EXPIRY_MARGIN_MS, TokenExchanger } from "../../src/net/token-exchange.js";
import { CLIENT_ID, CLIENT_SECRET, startTokenServer, type TokenServer } from "../helpers/token-server.js";

let as: TokenServer;
let caller: string;

beforeAll(async () => {
  as = await startTokenServer();
  caller = await as.sign({ sub: "alice" });
});
afterAll(() => as.close());
beforeEach(() => {
  as.mode = "ok";
  as.discovery = "oidc";
  as.requests.length = 0;
});

const secret = (extra: Partial<TokenExchangeAuth> = {}): TokenExchangeAuth => ({
  mode: "exchange",
  audience: "mcp-upstream",
  clientId: CLIENT_ID,
  clientSecret: CLIENT_SECRET,
  ...extra,
});

/** The UPSTREAM_AUTH_FAILED a failing exchange rejects with (and nothing else). */
async function failure(p: Promise<string>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isToolnexusError(err, "UPSTREAM_AUTH_FAILED")).toBe(true);
  const message = (err as Error).message;
  expect(message).not.toContain(caller);
  return message;
}

describe("TokenExchanger (RFC 8693 against a real local token endpoint)", () => {
  it("discovers the token endpoint from the issuer and sends the RFC 8693 form with client_secret_basic", async () => {
    const ex = new TokenExchanger(secret({ scope: "tools" }), { issuer: as.issuer });
    const token = await ex.token(caller);
    expect(as.requests).toHaveLength(1);
    const [req] = as.requests;
    expect(req?.contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(req?.authorization).toMatch(/^Basic /);
    expect(req?.form).toMatchObject({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      subject_token: caller,
      subject_token_type: "urn:ietf:params:oauth:token-type:access_token",
      requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
      audience: "mcp-upstream",
      scope: "tools",
    });
    expect(req?.form.client_secret).toBeUndefined();
    const claims = await as.verify(token);
    expect(claims).toMatchObject({ sub: "alice", aud: "mcp-upstream" });
    expect(token).not.toBe(caller);
  });

  it("falls back to RFC 8414 metadata when the issuer has no openid-configuration", async () => {
    as.discovery = "oauth2";
    const token = await new TokenExchanger(secret(), { issuer: as.issuer }).token(caller);
    expect((await as.verify(token)).aud).toBe("mcp-upstream");
  });

  it("caches per caller token until 30 s before expiry, and shares one exchange between concurrent calls", async () => {
    let now = Date.now();
    const ex = new TokenExchanger(secret({ tokenEndpoint: as.tokenEndpoint }), { now: () => now });
    const [a, b] = await Promise.all([ex.token(caller), ex.token(caller)]);
    expect(a).toBe(b);
    expect(as.requests).toHaveLength(1);
    expect(ex.cached(caller)).toBe(a);
    now += as.expiresIn * 1000 - EXPIRY_MARGIN_MS - 1;
    expect(await ex.token(caller)).toBe(a);
    expect(as.requests).toHaveLength(1);
    now += 2;
    expect(ex.cached(caller)).toBeUndefined();
    await ex.token(caller);
    expect(as.requests).toHaveLength(2);
    // Another caller is another entry.
    await ex.token(await as.sign({ sub: "bob" }));
    expect(as.requests).toHaveLength(3);
  });

  it("sends client_secret_post and the resource parameter when so configured", async () => {
    const ex = new TokenExchanger(
      secret({
        audience: undefined,
        resource: "https://api.example/",
        clientAuthMethod: "client_secret_post",
        tokenEndpoint: as.tokenEndpoint,
      }),
    );
    const token = await ex.token(caller);
    const [req] = as.requests;
    expect(req?.authorization).toBeUndefined();
    expect(req?.form).toMatchObject({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, resource: "https://api.example/" });
    expect(req?.form.audience).toBeUndefined();
    expect((await as.verify(token)).aud).toBe("https://api.example/");
  });

  it("authenticates with private_key_jwt signed by jose (PKCS#8 PEM and JWK)", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    as.clientKeys = [{ ...(await exportJWK(publicKey)), kid: "gw1", alg: "ES256" }];
    const pem = await exportPKCS8(privateKey);
    const fromPem = new TokenExchanger(
      { mode: "exchange", audience: "x", clientId: CLIENT_ID, privateKeyJwt: { key: pem, alg: "ES256", kid: "gw1" } },
      { issuer: as.issuer },
    );
    expect((await as.verify(await fromPem.token(caller))).aud).toBe("x");
    const jwk = JSON.stringify({ ...(await exportJWK(privateKey)), kid: "gw1", alg: "ES256" });
    const fromJwk = new TokenExchanger(
      { mode: "exchange", audience: "y", clientId: CLIENT_ID, privateKeyJwt: { key: jwk } },
      { issuer: as.issuer },
    );
    expect((await as.verify(await fromJwk.token(caller))).aud).toBe("y");
    for (const r of as.requests) {
      expect(r.authorization).toBeUndefined();
      expect(r.form.client_assertion_type).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
      expect(r.form.client_secret).toBeUndefined();
    }
    // A wrong key is refused by the server: the exchange fails.
    as.clientKeys = [];
    expect(
      await failure(
        new TokenExchanger(secret({ clientSecret: undefined, privateKeyJwt: { key: pem, alg: "ES256" } }), { issuer: as.issuer }).token(
          caller,
        ),
      ),
    ).toMatch(/refused/);
  });

  it("fails with UPSTREAM_AUTH_FAILED, never with a token in the message, on 500, a refusal, a hang or a wrong audience", async () => {
    const ex = () => new TokenExchanger(secret({ tokenEndpoint: as.tokenEndpoint, timeoutMs: 300 }));
    as.mode = "fail";
    expect(await failure(ex().token(caller))).toMatch(/HTTP 500/);
    as.mode = "refuse";
    expect(await failure(ex().token(caller))).toMatch(/invalid_grant/);
    as.mode = "wrong-aud";
    expect(await failure(ex().token(caller))).toMatch(/another audience/);
    as.mode = "hang";
    expect(await failure(ex().token(caller))).toMatch(/no answer within 300 ms/);
    // Nothing failed is cached: the next exchange asks again and succeeds.
    as.mode = "ok";
    const e = ex();
    as.mode = "fail";
    await failure(e.token(caller));
    as.mode = "ok";
    expect((await as.verify(await e.token(caller))).aud).toBe("mcp-upstream");
  });

  it("fails when the client secret is wrong, or the issuer's metadata cannot be read", async () => {
    expect(await failure(new TokenExchanger(secret({ clientSecret: "wrong-secret-0000" }), { issuer: as.issuer }).token(caller))).toMatch(
      /refused/,
    );
    expect(await failure(new TokenExchanger(secret(), { issuer: `${as.issuer}/nowhere` }).token(caller))).toMatch(
      /issuer's metadata cannot be read \(HTTP 404\)/,
    );
    expect(await failure(new TokenExchanger(secret()).token(caller))).toMatch(/no token endpoint/);
  });
});
