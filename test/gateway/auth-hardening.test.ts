// Issue 21 item 3, the auth/OAuth/web part, each against a running gateway as a user would meet it:
// a machine client registered with a principal's token dies with the principal's password change; a
// replayed device code revokes what it issued; failed logins are counted per account as well as per source.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import * as oauth from "oauth4webapi";
import { routeAccess } from "../../src/gateway/auth/route-access.ts";
import { addUser, startTestGateway, type TestGateway, sqlAll } from "./helpers.ts";
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
    const pat = (await gw.ctx.pats.create(ada, "registrar")).token;
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
    const first = await registerMachineClient(as, (await gw.ctx.pats.create(ada, "registrar")).token, "ci");
    const second = await registerMachineClient(as, (await clientCredentials(as, first)).access_token, "ci helper");
    const bobs = await registerMachineClient(as, (await gw.ctx.pats.create(bob, "registrar")).token, "bob's ci");
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
    const ci = await registerMachineClient(as, (await gw.ctx.pats.create(ada, "registrar")).token, "nightly ci");
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
    const client = await publicClient(gw);
    const web = new WebClient(gw.url);
    await web.login("ada", PASSWORD);
    const started = (await call(gw, "device_authorization", { client_id: client })).body;
    await decide(gw, web, started.user_code, true);
    const first = await call(gw, "token", { grant_type: DEVICE_GRANT, client_id: client, device_code: started.device_code });
    expect(first.status).toBe(200);
    expect((await listConfigurations(first.body.access_token)).status).toBe(200);

    gw.clock.advance(10_000);
    const replay = await call(gw, "token", { grant_type: DEVICE_GRANT, client_id: client, device_code: started.device_code });
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({ error: "invalid_grant", error_description: "the device code was already used; the tokens issued for it are now revoked" });
    expect(JSON.stringify(replay.body)).not.toContain(started.device_code);

    expect((await listConfigurations(first.body.access_token)).status).toBe(401);
    const refreshed = await call(gw, "token", { grant_type: "refresh_token", client_id: client, refresh_token: first.body.refresh_token });
    expect(refreshed.body.error).toBe("invalid_grant");
    const audit = (await gw.ctx.audit.list({ limit: 10 })).find((e) => e.action === "oauth.device_code_reuse");
    expect(audit?.outcome).toBe("denied");
    expect(JSON.stringify(audit)).not.toContain(started.device_code);
  });

  test("a device code replayed under another client id also revokes (the code has leaked)", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", PASSWORD);
    const client = await publicClient(gw);
    const web = new WebClient(gw.url);
    await web.login("ada", PASSWORD);
    const started = (await call(gw, "device_authorization", { client_id: client })).body;
    await decide(gw, web, started.user_code, true);
    const first = await call(gw, "token", { grant_type: DEVICE_GRANT, client_id: client, device_code: started.device_code });
    const replay = await call(gw, "token", { grant_type: DEVICE_GRANT, client_id: await publicClient(gw), device_code: started.device_code });
    expect(replay.body.error).toBe("invalid_grant");
    expect((await listConfigurations(first.body.access_token)).status).toBe(401);
  });
});

describe("failed sign-ins are counted per account, not only per source", () => {
  const proxied = "  trusted_proxies: [127.0.0.1/32]\n";
  const from = (ip: string) => new WebClient(gw.url, { "X-Forwarded-For": ip });
  /** Four addresses in four networks: the per-source limiter alone lets each fail 5 times. */
  const ATTACKERS = ["203.0.113.5", "198.18.7.9", "192.0.2.44", "100.64.3.4"];

  async function spray(username: string, addresses = ATTACKERS): Promise<void> {
    let n = 0;
    for (const ip of addresses) for (let i = 0; i < 5; i++) expect((await from(ip).login(username, `guess-${n++}-xxxx`)).status).toBe(401);
  }

  test("20 wrong passwords from 4 networks, then the right one from a 5th: 429 with Retry-After; the lock ends on the clock", async () => {
    gw = await startTestGateway("", { auth: proxied });
    await addUser(gw, "ada", PASSWORD);
    await spray("ada");
    const fifth = await from("172.16.5.5").login("ada", PASSWORD);
    expect(fifth.status).toBe(429);
    expect(fifth.headers.get("retry-after")).toBe("60");
    const page = await fifth.text();
    expect(page).toContain("Too many failed sign-ins. Try again in 60 seconds.");
    expect(page).not.toContain(PASSWORD);
    gw.clock.advance(60_000);
    expect((await from("172.16.5.5").login("ada", PASSWORD)).status).toBe(303);
    expect((await gw.ctx.audit.list({ limit: 30 })).some((e) => e.detail === "rate limited (account)" && e.source_ip === "172.16.5.5")).toBe(true);
  });

  test("one network with many addresses (IPv4 /24, IPv6 /56) is counted together after 5 failures", async () => {
    gw = await startTestGateway("", { auth: proxied });
    await addUser(gw, "ada", PASSWORD);
    for (let i = 1; i <= 5; i++) expect((await from(`203.0.113.${i}`).login("ada", `guess-${i}-xxxx`)).status).toBe(401);
    expect((await from("203.0.113.77").login("ada", PASSWORD)).status).toBe(429);
    expect((await from("203.0.114.1").login("ada", PASSWORD)).status).toBe(303); // another /24
    for (let i = 1; i <= 5; i++) expect((await from(`2001:db8:0:${i}::1`).login("ada", `guess-${i}-xxxx`)).status).toBe(401);
    expect((await from("2001:db8:0:ff::9").login("ada", PASSWORD)).status).toBe(429); // same /56, another /64
    expect((await from("2001:db8:0:100::1").login("ada", PASSWORD)).status).toBe(303); // the next /56
  });

  test("the owner is not locked out: a network the account signed in from stays open during the attack; the backoff doubles and is capped", async () => {
    gw = await startTestGateway("", { auth: proxied });
    await addUser(gw, "ada", PASSWORD);
    expect((await from("198.51.100.20").login("ada", PASSWORD)).status).toBe(303); // ada at home, last week
    gw.clock.advance(7 * 24 * 3600 * 1000);
    await spray("ada");
    expect((await from("172.16.5.5").login("ada", PASSWORD)).status).toBe(429);
    expect((await from("198.51.100.21").login("ada", PASSWORD)).status).toBe(303); // home network, another address
    // The attacker keeps going from new networks: each failure past the allowance doubles the wait, up to 15 minutes.
    const waits: string[] = [];
    for (let i = 0; i < 6; i++) {
      gw.clock.advance(900_000); // past any lock, inside the hour after which a counter is forgotten
      expect((await from(`10.${i}.0.1`).login("ada", `again-${i}-xxxx`)).status).toBe(401);
      waits.push((await from(`10.${i}.0.2`).login("ada", PASSWORD)).headers.get("retry-after")!);
    }
    expect(waits).toEqual(["120", "240", "480", "900", "900", "900"]);
    expect((await from("198.51.100.22").login("ada", PASSWORD)).status).toBe(303);
    gw.clock.advance(900_000);
    expect((await from("172.16.9.9").login("ada", PASSWORD)).status).toBe(303);
  });

  test("an unknown username locks the same way (a lock does not tell whether the account exists)", async () => {
    gw = await startTestGateway("", { auth: proxied });
    await spray("nobody");
    const res = await from("172.16.5.5").login("nobody", "whatever-xxxx");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    const stored = JSON.stringify((await sqlAll(gw.ctx.db, "SELECT * FROM rate_limit_state")));
    expect(stored).not.toContain("nobody");
  });

  test("terminal sign-in (/api/v1/auth/login) shares the counter with the web login", async () => {
    gw = await startTestGateway("", { auth: proxied });
    await addUser(gw, "ada", PASSWORD);
    await spray("ada");
    const res = await fetch(`${gw.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Forwarded-For": "172.16.5.5" },
      body: JSON.stringify({ client_id: await publicClient(gw), username: "ada", password: PASSWORD }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    expect(await res.json()).toEqual({ error: "rate_limited", error_description: "too many failed sign-ins; retry in 60 seconds" });
  });

  test("PAM sign-ins are counted the same way", async () => {
    const pam = { authenticate: async (_s: string, _u: string, password: string) => (password === "system-secret" ? "success" : "failure") as "success" | "failure", close() {} };
    gw = await startTestGateway("", { auth: proxied, pam });
    const alice = await gw.ctx.principals.create("alice");
    await gw.ctx.principals.setPam(alice.id, "agent-gateway", "alice_sys");
    expect((await from("198.51.100.1").login("alice_sys", "system-secret")).status).toBe(303);
    await spray("alice_sys");
    expect((await from("172.16.5.5").login("alice", "system-secret")).status).toBe(429);
  });

  test("the current password on the dashboard's password form is counted too", async () => {
    gw = await startTestGateway("", { auth: proxied });
    await addUser(gw, "ada", PASSWORD);
    const web = from("198.51.100.20");
    await web.login("ada", PASSWORD);
    await spray("ada", ATTACKERS.slice(0, 3));
    // 15 failures so far; 5 wrong current passwords from a 4th network's stolen session make 20.
    const thief = from("100.64.3.4");
    thief.jar.set(...([...web.jar][0] as [string, string]));
    for (let i = 0; i < 5; i++) {
      const page = await thief.dashboard();
      await thief.post("/password", { csrf: page.csrf, current: `guess-${i}-xxxx`, new: "new password 123", confirm: "new password 123" });
      expect((await thief.dashboard()).html).toContain("The current password is wrong.");
    }
    expect((await from("172.16.5.5").login("ada", PASSWORD)).status).toBe(429);
  });
});

describe("what each scope opens, said where people decide", () => {
  test("the approval page explains each scope, says machine is shell access, and says a project-only approval reaches no route", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", PASSWORD);
    const client = await publicClient(gw);
    const web = new WebClient(gw.url);
    await web.login("ada", PASSWORD);
    const started = (await call(gw, "device_authorization", { client_id: client })).body;
    const page = await (await web.get(`/device?user_code=${started.user_code}`)).text();
    expect(page).toContain("Approving <code>machine</code> gives this device shell access to this machine.");
    expect(page).toMatch(/id="scope-machine">Everything on this gateway[^<]*<strong>This is shell access: with it the device can run programs on this machine as the gateway&#39;s user \(a configuration&#39;s pre-run script, the tools of an agent session\)\.<\/strong>/);
    expect(page).toContain('id="scope-project">Nothing on its own: no route of this gateway accepts it yet.');

    await web.post("/device/approve", { csrf: WebClient.csrf(page), user_code: started.user_code, scope_project: "1" });
    expect(await (await web.get("/device")).text()).toContain("With only the project scope it can reach no route of this gateway yet.");
    const tokens = (await call(gw, "token", { grant_type: DEVICE_GRANT, client_id: client, device_code: started.device_code })).body;
    expect(tokens.scope).toBe("project");
    // What the page said: the proxy too answers 403 to project alone.
    const proxied = await fetch(`${gw.url}/api/v1/sessions/ses_x/proxy/sync`, bearer(tokens.access_token));
    expect([proxied.status, (await proxied.json()).error]).toEqual([403, "insufficient_scope"]);
  });

  test("a request for project only shows no shell-access warning", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", PASSWORD);
    const client = await publicClient(gw);
    const web = new WebClient(gw.url);
    await web.login("ada", PASSWORD);
    const started = (await call(gw, "device_authorization", { client_id: client, scope: "project" })).body;
    const page = await (await web.get(`/device?user_code=${started.user_code}`)).text();
    expect(page).not.toContain("shell-warning");
    expect(page).toContain('id="scope-project"');
  });

  test("docs/gateway.md agrees with the build: the proxy's scopes, what project opens, machine is shell access", () => {
    const doc = readFileSync(new URL("../../docs/gateway.md", import.meta.url), "utf8");
    const proxy = routeAccess("/api/v1/sessions/ses_x/proxy/sync");
    if (proxy.kind !== "scoped") throw new Error("the proxy route is expected to be scoped");
    const sentence = /the session proxy accepts ([^.]*)\./.exec(doc.replace(/\s+/g, " "))![1]!;
    for (const scope of ["machine", "project", "current_session"]) {
      const claimed = sentence.replace(/not `\w+`/g, "").includes(`\`${scope}\``);
      expect([scope, claimed]).toEqual([scope, proxy.anyOf.includes(scope)]);
    }
    expect(doc).toContain("**`machine` is shell access to the gateway machine:**");
    expect(doc).toMatch(/\| `project` \| Nothing on its own yet: no route accepts it/);
  });
});
