// src/client/gateway-client.ts against a real gateway: the device flow as `agent connect` runs it (prompt,
// polling with interval and slow_down, approval on /device), refresh before expiry, client_credentials,
// tokens stored 0600 per gateway host, revocation noticed as "sign in again".
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { GatewayAuthError, GatewayClient, type DeviceCodePrompt } from "../../src/client/gateway-client.ts";
import { addUser, startTestGateway, tempDir, type TestGateway, sqlGet } from "./helpers.ts";
import { confidentialClient, decide } from "./oauth-helpers.ts";
import { WebClient } from "./web-client.ts";

let gw: TestGateway;
let web: WebClient;
beforeAll(async () => {
  gw = await startTestGateway("", { auth: "  oauth_token_rate_limit: {max_attempts: 1000, window_secs: 60, lockout_secs: 60}\n" });
  await addUser(gw, "ada", "correct horse battery");
  web = new WebClient(gw.url);
  await web.login("ada", "correct horse battery");
});
afterAll(() => gw.stop());

/** A client whose sleeps move the gateway's fake clock; `short` makes the second wait 1 s too short. */
function clientFor(env: Record<string, string>, sleeps: number[], short = false) {
  return new GatewayClient({
    baseUrl: gw.url,
    env,
    now: () => gw.clock.now(),
    clientName: "agent connect (test)",
    sleep: async (ms) => {
      sleeps.push(ms);
      gw.clock.advance(short && sleeps.length === 2 ? ms - 1000 : ms);
    },
  });
}

describe("GatewayClient", () => {
  test("device login: prompt, polling that honours slow_down, approval, tokens stored 0600 per host; refresh before expiry", async () => {
    const env = { XDG_DATA_HOME: tempDir("gw-client-") };
    const sleeps: number[] = [];
    const client = clientFor(env, sleeps, true);
    let prompt: DeviceCodePrompt | undefined;
    const login = client.deviceLogin((p) => {
      prompt = p;
    });
    // Approve once the client has polled a few times (it is waiting in its fake sleeps meanwhile).
    while (!prompt) await Bun.sleep(1);
    expect(prompt.verificationUri).toBe(`${gw.url}/device`);
    expect(prompt.verificationUriComplete).toBe(`${gw.url}/device?user_code=${prompt.userCode}`);
    expect((await sqlGet(gw.ctx.db, "SELECT c.name FROM oauth_device_codes d JOIN oauth_clients c ON c.id = d.client_id WHERE d.user_code = ?", [prompt.userCode]))).toEqual({ name: "agent connect (test)" });
    while (sleeps.length < 4) await Bun.sleep(1);
    await decide(gw, web, prompt.userCode, true, ["machine"]);
    const tokens = await login;
    // The second wait was cut short -> slow_down -> every later wait is 5 s longer.
    expect(sleeps.slice(0, 4)).toEqual([5000, 5000, 10000, 10000]);
    expect(tokens.scope).toBe("machine");
    const file = client.store.pathFor(gw.url);
    expect(file).toBe(`${env.XDG_DATA_HOME}/agent/gateway-client/tokens/${new URL(gw.url).host.replace(":", "_")}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(client.store.dir).mode & 0o777).toBe(0o700);

    const first = await client.accessToken();
    expect(first).toBe(tokens.access_token!);
    gw.clock.advance((900 - 59) * 1000); // within a minute of expiry: refreshed (and rotated) before it lapses
    const [second, again] = await Promise.all([client.accessToken(), client.accessToken()]);
    expect(second).not.toBe(first);
    expect(again).toBe(second); // concurrent callers share one refresh (two would look like reuse)
    const health = await fetch(`${gw.url}/api/v1/health`, { headers: { Authorization: `Bearer ${second}` } });
    expect(((await health.json()) as any).authenticated.username).toBe("ada");

    // A second login reuses the registered client instead of registering another.
    const clients = ((await sqlGet(gw.ctx.db, "SELECT count(*) AS n FROM oauth_clients")) as { n: number }).n;
    await client.signOut();
    expect(client.store.load(gw.url).access_token).toBeUndefined();
    expect((await fetch(`${gw.url}/api/v1/health`, { headers: { Authorization: `Bearer ${second}` } })).status).toBe(401);
    await expect(client.accessToken()).rejects.toThrow(new GatewayAuthError("login_required", `not signed in to ${gw.url}`));
    const relogin = client.deviceLogin((p) => void decide(gw, web, p.userCode, true));
    await relogin;
    expect(((await sqlGet(gw.ctx.db, "SELECT count(*) AS n FROM oauth_clients")) as { n: number }).n).toBe(clients);
  });

  test("a denied request and a revoked grant are reported by code; the file never holds a secret", async () => {
    const env = { XDG_DATA_HOME: tempDir("gw-client-") };
    const client = clientFor(env, []);
    await expect(client.deviceLogin((p) => void decide(gw, web, p.userCode, false))).rejects.toThrow(new GatewayAuthError("access_denied", "the request was denied on the gateway's approval page"));
    await client.deviceLogin((p) => void decide(gw, web, p.userCode, true));
    const grant = ((await sqlGet(gw.ctx.db, "SELECT id FROM oauth_grants ORDER BY created_at DESC LIMIT 1")) as { id: string }).id;
    const dash = await web.dashboard();
    await web.post(`/grants/${grant}/revoke`, { csrf: dash.csrf });
    gw.clock.advance(900_000);
    await expect(client.accessToken()).rejects.toThrow(/sign in again/);

    const [id, secret] = await confidentialClient(gw, ["machine"]);
    const machine = clientFor({ XDG_DATA_HOME: tempDir("gw-client-") }, []);
    const issued = await machine.clientCredentials(id, secret);
    expect(issued.refresh_token).toBeUndefined();
    expect(await Bun.file(machine.store.pathFor(gw.url)).text()).not.toContain(secret);
    gw.clock.advance(900_000);
    const renewed = await machine.accessToken(secret);
    expect(renewed).not.toBe(issued.access_token);
    await expect(machine.clientCredentials(id, "cs_wrong")).rejects.toMatchObject({ code: "invalid_client" });
  });
});
