import { createHash, randomBytes } from "node:crypto";
import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { addAudience, clientCredentialsToken, keycloak, loginWithForm, REALM, userToken } from "../helpers/keycloak.js";

const tokenUrl = () => `${keycloak().issuer}/protocol/openid-connect/token`;

describe("the shared Keycloak of test/fixtures/keycloak", () => {
  it("issues a user token naming the gateway, the tools scopes and the user's groups", async () => {
    const claims = decodeJwt((await userToken()).access_token);
    expect(claims.iss).toBe(keycloak().issuer);
    expect(claims.sub).toEqual(expect.any(String));
    expect(claims.aud).toContain(REALM.gateway.clientId);
    expect(String(claims.scope).split(" ")).toEqual(expect.arrayContaining(["tools:read", "tools:call"]));
    expect(claims.groups).toEqual([REALM.user.group]);
  });

  it("issues machine tokens by client credentials", async () => {
    const claims = decodeJwt((await clientCredentialsToken()).access_token);
    expect(claims.azp).toBe(REALM.cli.clientId);
    expect(String(claims.scope).split(" ")).toEqual(expect.arrayContaining(["tools:read", "tools:call"]));
  });

  it("adds a resource URL to the audience of tokens with the tools scopes", async () => {
    const resource = `http://127.0.0.1:1/harness-${Math.random().toString(36).slice(2)}`;
    expect(decodeJwt((await userToken()).access_token).aud).not.toContain(resource);
    await addAudience(resource);
    await addAudience(resource); // idempotent
    expect(decodeJwt((await userToken()).access_token).aud).toContain(resource);
    expect(decodeJwt((await clientCredentialsToken()).access_token).aud).toContain(resource);
  });

  it("lets the gateway client exchange a user's token for an upstream audience", async () => {
    const subject = (await userToken()).access_token;
    const res = await fetch(tokenUrl(), {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
        client_id: REALM.gateway.clientId,
        client_secret: REALM.gateway.clientSecret,
        subject_token: subject,
        subject_token_type: "urn:ietf:params:oauth:token-type:access_token",
        audience: "mcp-upstream",
      }),
    });
    expect(res.status).toBe(200);
    const claims = decodeJwt(((await res.json()) as { access_token: string }).access_token);
    expect(claims.aud).toBe("mcp-upstream");
    expect(claims.sub).toBe(decodeJwt(subject).sub);
  });

  it("drives the login form of an authorization-code flow with PKCE to the redirect URI", async () => {
    const verifier = randomBytes(32).toString("base64url");
    const redirectUri = "http://127.0.0.1:9/callback";
    const auth = new URL(`${keycloak().issuer}/protocol/openid-connect/auth`);
    auth.search = new URLSearchParams({
      response_type: "code",
      client_id: REALM.testClient,
      redirect_uri: redirectUri,
      scope: "openid tools:read",
      state: "s1",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    }).toString();
    const back = await loginWithForm(auth.toString());
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get("state")).toBe("s1");
    const res = await fetch(tokenUrl(), {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "authorization_code",
        client_id: REALM.testClient,
        code: back.searchParams.get("code") ?? "",
        redirect_uri: redirectUri,
        code_verifier: verifier,
      }),
    });
    expect(res.status).toBe(200);
  });
});
