// oauth4webapi (an independent OAuth client library) drives the authorization server end to end:
// discovery with the issuer check, dynamic registration, device authorization with polling and approval
// on /device, client_credentials, refresh rotation, revocation.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as oauth from "oauth4webapi";
import { addUser, startTestGateway, type TestGateway } from "./helpers.ts";
import { WebClient } from "./web-client.ts";
import { decide } from "./oauth-helpers.ts";

let gw: TestGateway;
let as: oauth.AuthorizationServer;
let issuer: URL;
const http = { [oauth.allowInsecureRequests]: true } as const;

beforeAll(async () => {
  gw = await startTestGateway();
  await addUser(gw, "ada", "correct horse battery");
  issuer = new URL(gw.url);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...http }));
});
afterAll(() => gw.stop());

const health = (token: string) => fetch(`${gw.url}/api/v1/health`, { headers: { Authorization: `Bearer ${token}` } });
const oauthError = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) return error.error;
    throw error;
  }
  throw new Error("expected an OAuth error response");
};

describe("oauth4webapi against the gateway", () => {
  test("discovery: the issuer is the URL the gateway serves on, with every endpoint and the supported values", async () => {
    expect(as.issuer).toBe(gw.url);
    expect(as.token_endpoint).toBe(`${gw.url}/api/v1/oauth/token`);
    expect(as.grant_types_supported).toEqual(["urn:ietf:params:oauth:grant-type:device_code", "refresh_token", "client_credentials"]);
    expect(as.scopes_supported).toEqual(["machine", "project"]);
    // A client that started from another name for the same server refuses the document.
    const other = new URL(gw.url.replace("127.0.0.1", "localhost"));
    await expect(oauth.processDiscoveryResponse(other, await oauth.discoveryRequest(other, { algorithm: "oauth2", ...http }))).rejects.toThrow(/issuer/);
  });

  test("device flow: register, authorize, poll (pending, slow_down), approve on /device, tokens; refresh rotates; reuse revokes the family", async () => {
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { client_name: "agent connect on laptop", grant_types: ["urn:ietf:params:oauth:grant-type:device_code", "refresh_token"], token_endpoint_auth_method: "none" }, http),
    );
    expect(registered.client_secret).toBeUndefined();
    const client: oauth.Client = { client_id: registered.client_id };
    const none = oauth.None();
    const started = await oauth.processDeviceAuthorizationResponse(as, client, await oauth.deviceAuthorizationRequest(as, client, none, { scope: "machine project" }, http));
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.interval).toBe(5);
    expect(started.verification_uri_complete).toBe(`${gw.url}/device?user_code=${started.user_code}`);
    const poll = () => oauth.deviceCodeGrantRequest(as, client, none, started.device_code, http).then((r) => oauth.processDeviceCodeResponse(as, client, r));
    expect(await oauthError(poll())).toBe("authorization_pending");
    expect(await oauthError(poll())).toBe("slow_down");

    const web = new WebClient(gw.url);
    await web.login("ada", "correct horse battery");
    await decide(gw, web, started.user_code.toLowerCase().replace("-", ""), true);
    gw.clock.advance(10_000);
    const tokens = await poll();
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.access_token).toMatch(/^oat_/);
    expect(tokens.refresh_token).toMatch(/^rt_/);
    expect(tokens.scope).toBe("machine project");
    expect(((await (await health(tokens.access_token)).json()) as any).authenticated).toMatchObject({ family: "oat", username: "ada", scopes: ["machine", "project"] });

    const refresh = (token: string, scope?: string) => oauth.refreshTokenGrantRequest(as, client, none, token, { ...http, additionalParameters: scope ? { scope } : undefined }).then((r) => oauth.processRefreshTokenResponse(as, client, r));
    const second = await refresh(tokens.refresh_token!, "project");
    expect(second.scope).toBe("project");
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    expect(((await (await health(second.access_token)).json()) as any).authenticated.scopes).toEqual(["project"]);
    const third = await refresh(second.refresh_token!); // the new refresh token keeps the grant's full scope
    expect(third.scope).toBe("machine project");
    // The rotated token comes back: refused, and every token of the grant dies with it.
    expect(await oauthError(refresh(second.refresh_token!))).toBe("invalid_grant");
    expect(await oauthError(refresh(third.refresh_token!))).toBe("invalid_grant");
    expect((await health(third.access_token)).status).toBe(401);
    expect((await health(tokens.access_token)).status).toBe(401);
    // Single use (a replay while the grant lives revokes it: auth-hardening.test.ts).
    expect(await oauthError(poll())).toBe("invalid_grant");
  });

  test("client_credentials: confidential registration with an initial access token, Basic and post auth, no refresh token; revocation", async () => {
    const pat = (await gw.ctx.pats.create((await gw.ctx.principals.get("ada")).id, "registrar")).token;
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { client_name: "ci", grant_types: ["client_credentials"], token_endpoint_auth_method: "client_secret_basic", scope: "machine" }, { ...http, initialAccessToken: pat }),
    );
    expect(registered.client_secret).toMatch(/^cs_/);
    expect(registered.client_secret_expires_at).toBe(0);
    const client: oauth.Client = { client_id: registered.client_id };
    for (const auth of [oauth.ClientSecretBasic(registered.client_secret as string), oauth.ClientSecretPost(registered.client_secret as string)]) {
      const tokens = await oauth.processClientCredentialsResponse(as, client, await oauth.clientCredentialsGrantRequest(as, client, auth, {}, http));
      expect(tokens.refresh_token).toBeUndefined();
      expect(tokens.scope).toBe("machine");
      expect(tokens.expires_in).toBe(900);
      expect(((await (await health(tokens.access_token)).json()) as any).authenticated).toMatchObject({ family: "oat", username: expect.stringMatching(/^client_/), scopes: ["machine"] });
      await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, tokens.access_token, http));
      expect((await health(tokens.access_token)).status).toBe(401);
    }
    // A wrong secret: 401 invalid_client with a Basic challenge, which oauth4webapi surfaces as such.
    const wrong = oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic("cs_wrong"), {}, http).then((r) => oauth.processClientCredentialsResponse(as, client, r));
    const error = await wrong.catch((e) => e);
    expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect(error.cause[0].scheme).toBe("basic");
  });
});
