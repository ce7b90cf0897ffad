// Issue 21 item 3, the auth/OAuth/web part, each against a running gateway as a user would meet it:
// a machine client registered with a principal's token dies with the principal's password change; a
// replayed device code revokes what it issued; failed logins are counted per account as well as per source.
import { afterEach, describe, expect, test } from "bun:test";
import * as oauth from "oauth4webapi";
import { addUser, startTestGateway, type TestGateway } from "./helpers.ts";
import { call, decide, DEVICE_GRANT, publicClient } from "./oauth-helpers.ts";
import { WebClient } from "./web-client.ts";

let gw: TestGateway;
afterEach(() => gw?.stop());

const http = { [oauth.allowInsecureRequests]: true } as const;
const PASSWORD = "correct horse battery";
const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
/** A management route (needs `machine`): what a CI job calls. */
const listConfigurations = (token: string) => fetch(`${gw.url}/api/v1/configurations`, bearer(token));

async function discover(): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(gw.url);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...http }));
}

/** Registers a confidential client_credentials client over HTTP with `initialAccessToken`. */
async function registerMachineClient(as: oauth.AuthorizationServer, initialAccessToken: string, name: string): Promise<{ client: oauth.Client; auth: oauth.ClientAuth }> {
  const registered = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(as, { client_name: name, grant_types: ["client_credentials"], token_endpoint_auth_method: "client_secret_basic", scope: "machine" }, { ...http, initialAccessToken }),
  );
  return { client: { client_id: registered.client_id }, auth: oauth.ClientSecretBasic(registered.client_secret as string) };
}

const clientCredentials = async (as: oauth.AuthorizationServer, c: { client: oauth.Client; auth: oauth.ClientAuth }) =>
  oauth.processClientCredentialsResponse(as, c.client, await oauth.clientCredentialsGrantRequest(as, c.client, c.auth, {}, http));

async function oauthError(p: Promise<unknown>): Promise<{ error: string; description?: string }> {
  try {
    await p;
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) return { error: error.error, description: error.error_description };
    throw error;
  }
  throw new Error("expected an OAuth error response");
}

async function changePassword(web: WebClient, current: string, next: string): Promise<string> {
  const page = await web.dashboard();
  const res = await web.post("/password", { csrf: page.csrf, current, new: next, confirm: next });
  expect(res.status).toBe(303);
  return (await web.dashboard()).html;
}

describe("a machine client registered with a principal's token (spec rule 10)", () => {
  test("after the principal changes the password its tokens are refused and it gets no new ones; the grant was on the dashboard", async () => {
    gw = await startTestGateway();
    const ada = await addUser(gw, "ada", PASSWORD);
    const pat = gw.ctx.pats.create(ada, "registrar").token;
    const as = await discover();
    const ci = await registerMachineClient(as, pat, "nightly ci");
    const before = await clientCredentials(as, ci);
    expect((await listConfigurations(before.access_token)).status).toBe(200);

    const web = new WebClient(gw.url);
    await web.login("ada", PASSWORD);
    // The registration is a grant of ada's: she sees it and could revoke it herself.
    expect((await web.dashboard()).html).toContain("nightly ci");
    expect(await changePassword(web, PASSWORD, "new password 123")).toContain("Password changed.");

    expect((await listConfigurations(before.access_token)).status).toBe(401);
    expect(await oauthError(clientCredentials(as, ci))).toEqual({
      error: "invalid_grant",
      description: "the authority this client was registered with was revoked (a password change or a revoked grant); register a new client",
    });
    expect((await web.dashboard()).html).not.toContain("nightly ci");
  });

  test("a client registered by that machine client in turn goes with it; a client of another principal stays", async () => {
    gw = await startTestGateway();
    const ada = await addUser(gw, "ada", PASSWORD);
    const bob = await addUser(gw, "bob", PASSWORD);
    const as = await discover();
    const first = await registerMachineClient(as, gw.ctx.pats.create(ada, "registrar").token, "ci");
    const second = await registerMachineClient(as, (await clientCredentials(as, first)).access_token, "ci helper");
    const bobs = await registerMachineClient(as, gw.ctx.pats.create(bob, "registrar").token, "bob's ci");
    const secondToken = (await clientCredentials(as, second)).access_token;
    expect((await listConfigurations(secondToken)).status).toBe(200);

    const web = new WebClient(gw.url);
    await web.login("ada", PASSWORD);
    await changePassword(web, PASSWORD, "new password 123");

    expect((await listConfigurations(secondToken)).status).toBe(401);
    expect((await oauthError(clientCredentials(as, second))).error).toBe("invalid_grant");
    expect((await listConfigurations((await clientCredentials(as, bobs)).access_token)).status).toBe(200);
  });

  test("revoking the registration grant on the dashboard stops the client at once", async () => {
    gw = await startTestGateway();
    const ada = await addUser(gw, "ada", PASSWORD);
    const as = await discover();
    const ci = await registerMachineClient(as, gw.ctx.pats.create(ada, "registrar").token, "nightly ci");
    const token = (await clientCredentials(as, ci)).access_token;
    const web = new WebClient(gw.url);
    await web.login("ada", PASSWORD);
    const page = await web.dashboard();
    const action = /action="(\/grants\/[^"]+\/revoke)"/.exec(page.html)![1]!;
    await web.post(action, { csrf: page.csrf });
    expect((await web.dashboard()).html).toContain("Grant revoked.");
    expect((await listConfigurations(token)).status).toBe(401);
    expect((await oauthError(clientCredentials(as, ci))).error).toBe("invalid_grant");
  });
});

describe("a device code redeemed twice", () => {
  test("the second redemption is refused and the tokens of the first are revoked (access and refresh)", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", PASSWORD);
    const client = publicClient(gw);
    const web = new WebClient(gw.url);
    await web.login("ada", PASSWORD);
    const started = (await call(gw, "device_authorization", { client_id: client })).body;
    await decide(gw, web, started.user_code, true);
    const first = await call(gw, "token", { grant_type: DEVICE_GRANT, client_id: client, device_code: started.device_code });
    expect(first.status).toBe(200);
    expect((await listConfigurations(first.body.access_token)).status).toBe(200);

    gw.clock.advance(10);
    const replay = await call(gw, "token", { grant_type: DEVICE_GRANT, client_id: client, device_code: started.device_code });
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({ error: "invalid_grant", error_description: "the device code was already used; the tokens issued for it are now revoked" });
    expect(JSON.stringify(replay.body)).not.toContain(started.device_code);

    expect((await listConfigurations(first.body.access_token)).status).toBe(401);
    const refreshed = await call(gw, "token", { grant_type: "refresh_token", client_id: client, refresh_token: first.body.refresh_token });
    expect(refreshed.body.error).toBe("invalid_grant");
    const audit = gw.ctx.audit.list({ limit: 10 }).find((e) => e.action === "oauth.device_code_reuse");
    expect(audit?.outcome).toBe("denied");
    expect(JSON.stringify(audit)).not.toContain(started.device_code);
  });

  test("a device code replayed under another client id also revokes (the code has leaked)", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", PASSWORD);
    const client = publicClient(gw);
    const web = new WebClient(gw.url);
    await web.login("ada", PASSWORD);
    const started = (await call(gw, "device_authorization", { client_id: client })).body;
    await decide(gw, web, started.user_code, true);
    const first = await call(gw, "token", { grant_type: DEVICE_GRANT, client_id: client, device_code: started.device_code });
    const replay = await call(gw, "token", { grant_type: DEVICE_GRANT, client_id: publicClient(gw), device_code: started.device_code });
    expect(replay.body.error).toBe("invalid_grant");
    expect((await listConfigurations(first.body.access_token)).status).toBe(401);
  });
});
