// A confidential client registered over HTTP gets no scope its initial access token lacks (decision 46 of
// docs/decisions-gateway.md): asked for, it is refused with invalid_client_metadata naming the scope; not
// asked for, the client gets the token's scopes. Driven by oauth4webapi against the running gateway.
import { afterEach, describe, expect, test } from "bun:test";
import * as oauth from "oauth4webapi";
import { addUser, startTestGateway, type TestGateway, sqlGet } from "./helpers.ts";
import { call, decide, DEVICE_GRANT, publicClient } from "./oauth-helpers.ts";
import { WebClient } from "./web-client.ts";

let gw: TestGateway;
afterEach(() => gw?.stop());

const http = { [oauth.allowInsecureRequests]: true } as const;

async function discover(): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(gw.url);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...http }));
}

/** An access token of ada's from the device flow, approved on /device with only `scopes` ticked. */
async function deviceToken(scopes: string[]): Promise<string> {
  const client = await publicClient(gw);
  const web = new WebClient(gw.url);
  await web.login("ada", "correct horse battery");
  const started = (await call(gw, "device_authorization", { client_id: client })).body;
  await decide(gw, web, started.user_code, true, scopes);
  const issued = await call(gw, "token", { grant_type: DEVICE_GRANT, client_id: client, device_code: started.device_code });
  expect(issued.body.scope).toBe(scopes.join(" "));
  return issued.body.access_token;
}

const register = (as: oauth.AuthorizationServer, token: string, scope?: string) =>
  oauth.dynamicClientRegistrationRequest(as, { client_name: "ci", grant_types: ["client_credentials"], token_endpoint_auth_method: "client_secret_basic", ...(scope ? { scope } : {}) }, { ...http, initialAccessToken: token });

const clientCount = async () => ((await sqlGet(gw.ctx.db, "SELECT count(*) AS n FROM oauth_clients WHERE client_type = 'confidential'")) as { n: number }).n;

describe("a confidential client's scopes are capped at the registering token's", () => {
  test("a machine-only token asking for project too is refused naming the scope; nothing is stored", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", "correct horse battery");
    const as = await discover();
    const token = await deviceToken(["machine"]);
    const res = await register(as, token, "machine project");
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: "invalid_client_metadata",
      error_description: "scope 'project' is not held by the access token that registers the client (it holds: machine); ask for at most those scopes, or register with a token that holds 'project'",
    });
    expect(await clientCount()).toBe(0);
    // oauth4webapi reads it as the OAuth error it is.
    const error = await oauth.processDynamicClientRegistrationResponse(await register(as, token, "project")).catch((e) => e);
    expect(error).toBeInstanceOf(oauth.ResponseBodyError);
    expect([error.error, error.error_description]).toEqual(["invalid_client_metadata", expect.stringContaining("scope 'project'")]);
    expect(await clientCount()).toBe(0);
  });

  test("asking for no scope gives the token's scopes; the client's tokens hold nothing more", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", "correct horse battery");
    const as = await discover();
    const registered = await oauth.processDynamicClientRegistrationResponse(await register(as, await deviceToken(["machine"])));
    expect(registered.scope).toBe("machine");
    const client: oauth.Client = { client_id: registered.client_id };
    const auth = oauth.ClientSecretBasic(registered.client_secret as string);
    const tokens = await oauth.processClientCredentialsResponse(as, client, await oauth.clientCredentialsGrantRequest(as, client, auth, {}, http));
    expect(tokens.scope).toBe("machine");
    // Asking the token endpoint for project does not widen it either.
    const wider = await oauth.processClientCredentialsResponse(as, client, await oauth.clientCredentialsGrantRequest(as, client, auth, { scope: "machine project" }, http)).catch((e) => e);
    expect(wider).toBeInstanceOf(oauth.ResponseBodyError);
    // The registration grant holds the same scopes (it is what a password change revokes).
    expect((await sqlGet(gw.ctx.db, "SELECT scopes FROM oauth_grants WHERE client_id = ?", [registered.client_id]))).toEqual({ scopes: '["machine"]' });
  });

  test("a token holding both scopes may register a client with both, or with fewer", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", "correct horse battery");
    const as = await discover();
    const token = await deviceToken(["machine", "project"]);
    expect((await oauth.processDynamicClientRegistrationResponse(await register(as, token))).scope).toBe("machine project");
    expect((await oauth.processDynamicClientRegistrationResponse(await register(as, token, "machine"))).scope).toBe("machine");
  });
});
