// Headless Chromium against the web UI over TLS: login, PAT creation, password change, a forged
// cross-origin POST, and session expiry on the gateway's fake clock.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { parseGatewayConfig } from "../../src/gateway/config/load.ts";
import { resolveTls, SELF_SIGNED_CERT } from "../../src/gateway/net/tls.ts";
import * as oauth from "oauth4webapi";
import { addUser, startTestGateway, tempDir, type TestGateway, sqlAll, sqlGet } from "./helpers.ts";

const CHROMIUM = "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const reason = existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing (apt-get install -y chromium)`;
if (reason) console.log(`skipping browser tests: ${reason}`);

describe.skipIf(Boolean(reason))("web UI in headless Chromium", () => {
  let gw: TestGateway;
  let browser: Browser;
  let ca: string;
  let evil: ReturnType<typeof Bun.serve>;

  beforeAll(async () => {
    const dir = tempDir("gw-browser-");
    const data = join(dir, "data");
    // A self-signed pair in the data dir is reused by the loopback listener, so the browser gets HTTPS.
    await resolveTls(parseGatewayConfig("listen: {address: 0.0.0.0}\nauth: {}\n", join(dir, "c.yaml")), data, new Date());
    ca = readFileSync(join(data, SELF_SIGNED_CERT), "utf8");
    gw = await startTestGateway("", { dataDir: data, auth: "  session: {idle_secs: 600, absolute_secs: 3600}\n" });
    await addUser(gw, "ada", "correct horse battery");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
    evil = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(`<html><body><form method="post" action="${gw.url}/tokens"><input name="label" value="planted"><input name="csrf" value="guess"></form><script>document.forms[0].submit()</script></body></html>`, {
          headers: { "Content-Type": "text/html" },
        }),
    });
  });
  afterAll(async () => {
    await browser?.close();
    evil?.stop(true);
    await gw?.stop();
  });

  test("login, create a PAT, change the password, refuse a forged cross-origin POST, expire on idle", async () => {
    expect(gw.url).toStartWith("https://127.0.0.1:");
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await page.goto(`${gw.url}/login`);
    await page.fill("#username", "ada");
    await page.fill("#password", "correct horse battery");
    await page.click("button[type=submit]");
    await page.waitForURL(`${gw.url}/`);
    expect(await page.textContent("h1")).toContain("Signed in as ada");

    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === "__Host-agent_session")!;
    expect(session).toMatchObject({ secure: true, httpOnly: true, sameSite: "Strict", path: "/" });
    expect(cookies.some((c) => c.name === "agent_session")).toBe(false);

    await page.fill("#label", "browser token");
    await page.click("#tokens button[type=submit]:has-text('Create token')");
    await page.waitForSelector("#new-token-value");
    const token = (await page.textContent("#new-token-value"))!.trim();
    expect(token).toMatch(/^pat_/);
    const use = () => fetch(`${gw.url}/api/v1/health`, { headers: { Authorization: `Bearer ${token}` }, tls: { ca } });
    expect((await use()).status).toBe(200);
    await page.reload();
    expect(await page.$("#new-token-value")).toBeNull();

    // A page on another origin (same site: 127.0.0.1, other port) auto-submits a form to the gateway.
    const attack = await context.newPage();
    const response = await attack.goto(evil.url.href);
    await attack.waitForLoadState("load");
    await attack.waitForFunction(() => document.body.textContent?.includes("refused") ?? false, undefined, { timeout: 10_000 });
    expect(await attack.textContent("body")).toContain("Cross-site form submissions are refused.");
    expect(response).not.toBeNull();
    const labels = (await gw.ctx.pats.list((await gw.ctx.principals.get("ada")).id)).map((t) => t.label);
    expect(labels).toEqual(["browser token"]);
    await attack.close();

    await page.fill("#current", "correct horse battery");
    await page.fill("#new", "a brand new passphrase");
    await page.fill("#confirm", "a brand new passphrase");
    await page.click("#password button[type=submit]");
    await page.waitForSelector("text=Password changed.");
    expect((await use()).status).toBe(401);

    // Approve a device request from the browser, keeping only the project scope.
    const now = gw.clock.now();
    await sqlAll(gw.ctx.db, "INSERT INTO oauth_clients (id, name, client_type, grant_types, scopes, created_at) VALUES ('cli_b', 'agent connect', 'public', '[]', '[\"machine\",\"project\"]', ?)", [now]);
    await sqlAll(gw.ctx.db, "INSERT INTO oauth_device_codes (device_code_hash, user_code, client_id, scopes, status, interval_secs, created_at, expires_at) VALUES ('h', 'BCDF-GHJK', 'cli_b', '[\"machine\",\"project\"]', 'pending', 5, ?, ?)", [now, now + 900_000]);
    await page.click("text=Connect a device");
    await page.fill("#user_code", "bcdf ghjk");
    await page.click("button:has-text('Continue')");
    await page.waitForSelector("#device-code");
    expect(await page.textContent("#device-code")).toBe("BCDF-GHJK");
    await page.uncheck("input[name=scope_machine]");
    await page.click("#approve");
    await page.waitForSelector("text=Approved: agent connect");
    expect((await sqlGet(gw.ctx.db, "SELECT status, scopes FROM oauth_device_codes WHERE user_code = 'BCDF-GHJK'"))).toEqual({ status: "approved", scopes: '["project"]' });

    gw.clock.advance(601_000);
    await page.reload();
    expect(page.url()).toBe(`${gw.url}/login?next=%2Fdevice`);
    await page.fill("#username", "ada");
    await page.fill("#password", "a brand new passphrase");
    await page.click("button[type=submit]");
    await page.waitForURL(`${gw.url}/device`);
    await context.close();
  }, 60_000);

  test("device flow driven by oauth4webapi over TLS, approved by a person in the browser from verification_uri_complete", async () => {
    const tlsFetch = ((url: string, init: RequestInit) => fetch(url, { ...init, tls: { ca } })) as unknown as typeof fetch;
    const opts = { [oauth.customFetch]: tlsFetch };
    const issuer = new URL(gw.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...opts }));
    const registered = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, { client_name: "CI laptop", token_endpoint_auth_method: "none" }, opts));
    const client: oauth.Client = { client_id: registered.client_id };
    const started = await oauth.processDeviceAuthorizationResponse(as, client, await oauth.deviceAuthorizationRequest(as, client, oauth.None(), {}, opts));
    const poll = () => oauth.deviceCodeGrantRequest(as, client, oauth.None(), started.device_code, opts).then((r) => oauth.processDeviceCodeResponse(as, client, r));

    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await page.goto(started.verification_uri_complete!);
    await page.waitForURL(/\/login\?next=/);
    await page.fill("#username", "ada");
    await page.fill("#password", "a brand new passphrase"); // set by the test above
    await page.click("button[type=submit]");
    await page.waitForSelector("#device-code");
    // Arriving with the code prefilled shows the client and scopes but decides nothing until confirmed.
    expect(await page.textContent("main")).toContain("CI laptop");
    expect(await page.isChecked("input[name=scope_machine]")).toBe(true);
    await expect(poll()).rejects.toMatchObject({ error: "authorization_pending" });
    await page.click("#approve");
    await page.waitForSelector("text=Approved: CI laptop");
    gw.clock.advance((started.interval ?? 5) * 1000);
    const tokens = await poll();
    expect(tokens.scope).toBe("machine project");
    const health = await tlsFetch(`${gw.url}/api/v1/health`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(((await health.json()) as { authenticated: { username: string } }).authenticated.username).toBe("ada");

    // The dashboard lists the grant; revoking it there kills the tokens.
    await page.goto(`${gw.url}/`);
    expect(await page.textContent("#grants")).toContain("CI laptop");
    await page.click("#grants button:has-text('Revoke')");
    await page.waitForSelector("text=Grant revoked.");
    expect((await tlsFetch(`${gw.url}/api/v1/health`, { headers: { Authorization: `Bearer ${tokens.access_token}` } })).status).toBe(401);
    await context.close();
  }, 60_000);
});
