import { afterEach, describe, expect, test } from "bun:test";
import { addUser, startTestGateway, type TestGateway, sqlAll, sqlGet } from "./helpers.ts";
import { WebClient } from "./web-client.ts";

let gw: TestGateway;
afterEach(() => gw?.stop());

describe("web login", () => {
  test("login sets an HttpOnly SameSite=Strict session cookie, 303 to the dashboard; logout ends it server-side", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", "correct horse battery");
    const web = new WebClient(gw.url);
    const res = await web.login("ada", "correct horse battery");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("agent_session="))!;
    expect(cookie).toMatch(/^agent_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    const dash = await web.dashboard();
    expect(dash.status).toBe(200);
    expect(dash.html).toContain("Signed in as ada");
    const stolen = web.jar.get("agent_session")!;
    expect((await web.post("/logout", { csrf: dash.csrf })).headers.get("location")).toBe("/login");
    const replay = new WebClient(gw.url);
    replay.jar.set("agent_session", stolen);
    expect((await replay.get("/")).headers.get("location")).toBe("/login");
  });

  test("behind a TLS-terminating proxy (https external_url) cookies keep the __Host- prefix and Secure", async () => {
    gw = await startTestGateway("", { auth: "  external_url: https://gw.example.com\n" });
    const res = await fetch(`${gw.url}/login`);
    expect(res.headers.getSetCookie()[0]).toMatch(/^__Host-agent_login_csrf=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
  });

  test("a new session id at every login: a planted cookie is never adopted", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", "correct horse battery");
    const web = new WebClient(gw.url);
    web.jar.set("agent_session", "planted-by-attacker");
    expect((await web.login("ada", "correct horse battery")).status).toBe(303);
    const first = web.jar.get("agent_session")!;
    expect(first).not.toBe("planted-by-attacker");
    await web.post("/logout", { csrf: (await web.dashboard()).csrf });
    await web.login("ada", "correct horse battery");
    expect(web.jar.get("agent_session")).not.toBe(first);
  });

  test("wrong password, unknown user: the same 401 page without echoing input", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", "correct horse battery");
    const a = await new WebClient(gw.url).login("ada", "wrong-password-1");
    const b = await new WebClient(gw.url).login("nobody", "wrong-password-2");
    expect(a.status).toBe(401);
    expect(b.status).toBe(401);
    const [ta, tb] = [await a.text(), await b.text()];
    expect(ta).toContain("Wrong username or password.");
    expect(ta.replace(/value="[^"]+"/, "")).toBe(tb.replace(/value="[^"]+"/, ""));
    expect(ta).not.toContain("wrong-password-1");
    expect(a.headers.getSetCookie()).toEqual([]);
  });

  test("an unknown username still costs a password hash (dummy verify), like a wrong password", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", "correct horse battery");
    const calls: Array<string | undefined> = [];
    const original = gw.ctx.hasher.verify.bind(gw.ctx.hasher);
    gw.ctx.hasher.verify = (password, hash, priority) => {
      calls.push(hash === undefined ? "dummy" : "real");
      return original(password, hash, priority);
    };
    await new WebClient(gw.url).login("my-secret-password", "whatever-123");
    await new WebClient(gw.url).login("ada", "whatever-123");
    expect(calls).toEqual(["dummy", "real"]);
    const [second, first] = await gw.ctx.audit.list({ limit: 2 });
    expect(first).toMatchObject({ action: "login", outcome: "failure", target: "unknown username" });
    expect(second).toMatchObject({ action: "login", outcome: "failure", target: (await gw.ctx.principals.get("ada")).id });
    expect(JSON.stringify(await gw.ctx.audit.list())).not.toContain("my-secret-password");
  });

  test("login limiter: max_attempts failures, then 429 with Retry-After even for the right password; other IPs unaffected; expiry on the clock", async () => {
    gw = await startTestGateway("", { auth: "  trusted_proxies: [127.0.0.1/32]\n" });
    await addUser(gw, "ada", "correct horse battery");
    const attacker = new WebClient(gw.url, { "X-Forwarded-For": "203.0.113.5" });
    for (let i = 0; i < 5; i++) expect((await attacker.login("ada", `guess-${i}-xxxx`)).status).toBe(401);
    const locked = await attacker.login("ada", "correct horse battery");
    expect(locked.status).toBe(429);
    expect(locked.headers.get("retry-after")).toBe("300");
    expect((await new WebClient(gw.url, { "X-Forwarded-For": "198.51.100.4" }).login("ada", "correct horse battery")).status).toBe(303);
    gw.clock.advance(300_000);
    expect((await attacker.login("ada", "correct horse battery")).status).toBe(303);
    const events = (await gw.ctx.audit.list({ limit: 20 })).map((e) => `${e.action}:${e.outcome}:${e.source_ip}`);
    expect(events).toContain("login:denied:203.0.113.5");
    expect(events.filter((e) => e === "login:failure:203.0.113.5")).toHaveLength(5);
    expect(events).toContain("login:success:198.51.100.4");
  });
});

describe("internal failure during login", () => {
  test("a broken database is a 503 page, never a login, and does not count toward the limiter", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", "correct horse battery");
    const web = new WebClient(gw.url);
    const page = await (await web.get("/login")).text();
    await sqlAll(gw.ctx.db, "DROP TABLE password_credentials");
    for (let i = 0; i < 7; i++) {
      const res = await web.post("/login", { csrf: WebClient.csrf(page), username: "ada", password: "correct horse battery" });
      expect(res.status).toBe(503);
      expect(res.headers.getSetCookie()).toEqual([]);
      expect(await res.text()).not.toContain("password_credentials");
    }
    expect(await gw.ctx.limiters.login.lockedFor("127.0.0.1")).toBe(0);
  });
});

describe("CSRF and cross-site protection", () => {
  test("cross-site posts, missing or wrong tokens and non-form bodies are refused", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", "correct horse battery");
    const web = new WebClient(gw.url);
    await web.login("ada", "correct horse battery");
    const { csrf } = await web.dashboard();
    const cross = await web.post("/tokens", { csrf, label: "evil" }, { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" });
    expect(cross.status).toBe(403);
    expect((await web.post("/tokens", { csrf, label: "evil" }, { "Sec-Fetch-Site": "same-site" })).status).toBe(403);
    expect((await web.post("/tokens", { csrf, label: "evil" }, { Origin: "null", "Sec-Fetch-Site": "" })).status).toBe(403);
    expect((await web.post("/tokens", { csrf, label: "evil" }, { Origin: `${gw.url.replace("127.0.0.1", "localhost")}`, "Sec-Fetch-Site": "" })).status).toBe(403);
    expect((await web.post("/tokens", { csrf: "forged", label: "evil" })).status).toBe(403);
    expect((await web.post("/tokens", { label: "evil" })).status).toBe(403);
    const json = await fetch(`${gw.url}/tokens`, { method: "POST", redirect: "manual", body: JSON.stringify({ csrf, label: "evil" }), headers: { "Content-Type": "application/json", Cookie: `agent_session=${web.jar.get("agent_session")}` } });
    expect(json.status).toBe(400);
    expect(await gw.ctx.pats.list((await gw.ctx.principals.get("ada")).id)).toEqual([]);
    const loginForged = await new WebClient(gw.url).post("/login", { csrf: "x", username: "ada", password: "correct horse battery" });
    expect(loginForged.status).toBe(403);
  });

  test("a token of the right length but the wrong content is refused, on the session's forms and on the login form", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", "correct horse battery");
    const web = new WebClient(gw.url);
    await web.login("ada", "correct horse battery");
    const { csrf } = await web.dashboard();
    // The same length, one character changed (first, middle, last), and another session's token.
    const flip = (t: string, i: number) => t.slice(0, i) + (t[i] === "A" ? "B" : "A") + t.slice(i + 1);
    const other = new WebClient(gw.url);
    await other.login("ada", "correct horse battery");
    const othersCsrf = (await other.dashboard()).csrf;
    expect(othersCsrf).not.toBe(csrf);
    for (const forged of [flip(csrf, 0), flip(csrf, csrf.length >> 1), flip(csrf, csrf.length - 1), othersCsrf]) {
      expect(forged.length).toBe(csrf.length);
      expect({ forged, status: (await web.post("/tokens", { csrf: forged, label: "evil" })).status }).toEqual({ forged, status: 403 });
    }
    expect(await gw.ctx.pats.list((await gw.ctx.principals.get("ada")).id)).toEqual([]);
    expect((await web.post("/tokens", { csrf, label: "mine" })).status).toBe(303);
    const login = new WebClient(gw.url);
    const page = await (await login.get("/login")).text();
    const loginCsrf = WebClient.csrf(page);
    const forgedLogin = await login.post("/login", { csrf: flip(loginCsrf, loginCsrf.length - 1), username: "ada", password: "correct horse battery" });
    expect(forgedLogin.status).toBe(403);
  });

  test("pages forbid framing and load no third-party assets", async () => {
    gw = await startTestGateway();
    const res = await new WebClient(gw.url).get("/login");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    expect(await res.text()).not.toMatch(/https?:\/\//);
  });
});

describe("dashboard", () => {
  test("create a PAT (shown once), use it, revoke it", async () => {
    gw = await startTestGateway();
    const id = await addUser(gw, "ada", "correct horse battery");
    const web = new WebClient(gw.url);
    await web.login("ada", "correct horse battery");
    const created = await web.post("/tokens", { csrf: (await web.dashboard()).csrf, label: "laptop" });
    expect(created.status).toBe(303);
    const shown = await web.dashboard();
    const token = /id="new-token-value">(pat_[^<]+)</.exec(shown.html)![1]!;
    expect((await web.dashboard()).html).not.toContain(token);
    expect((await fetch(`${gw.url}/api/v1/health`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    const tokenId = (await gw.ctx.pats.list(id))[0]!.id;
    await web.post(`/tokens/${tokenId}/revoke`, { csrf: shown.csrf });
    expect((await fetch(`${gw.url}/api/v1/health`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
    expect((await web.dashboard()).html).toContain("Token “laptop” revoked.");
  });

  test("another principal's token cannot be revoked", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", "correct horse battery");
    const bob = await addUser(gw, "bob", "correct horse battery");
    const { info } = await gw.ctx.pats.create(bob, "bob's");
    const web = new WebClient(gw.url);
    await web.login("ada", "correct horse battery");
    await web.post(`/tokens/${info.id}/revoke`, { csrf: (await web.dashboard()).csrf });
    expect((await gw.ctx.pats.get(info.id))!.revoked).toBe(false);
  });

  test("changing the password revokes other sessions, OAuth grants with tokens and PATs; this session stays", async () => {
    gw = await startTestGateway();
    const id = await addUser(gw, "ada", "correct horse battery");
    const other = new WebClient(gw.url);
    await other.login("ada", "correct horse battery");
    const { token: pat } = await gw.ctx.pats.create(id, "ci");
    const now = gw.clock.now();
    await sqlAll(gw.ctx.db, "INSERT INTO oauth_clients (id, name, client_type, grant_types, scopes, created_at) VALUES ('cli_1', 'agent connect', 'public', '[\"device_code\"]', '[\"machine\"]', ?)", [now]);
    await sqlAll(gw.ctx.db, "INSERT INTO oauth_grants (id, client_id, principal_id, scopes, created_at) VALUES ('grt_1', 'cli_1', ?, '[\"machine\"]', ?)", [id, now]);
    const oat = "oat_testaccesstokentestaccesstokentestaccess";
    await sqlAll(gw.ctx.db, "INSERT INTO oauth_access_tokens (id, token_hash, grant_id, client_id, principal_id, scopes, created_at, expires_at) VALUES ('at_1', ?, 'grt_1', 'cli_1', ?, '[\"machine\"]', ?, ?)", [new Bun.CryptoHasher("sha256").update(oat).digest("hex"), id, now, now + 900_000]);
    await sqlAll(gw.ctx.db, "INSERT INTO oauth_refresh_tokens (id, token_hash, grant_id, family_id, created_at, expires_at, idle_expires_at) VALUES ('rt_1', 'h', 'grt_1', 'f1', ?, ?, ?)", [now, now + 1e9, now + 1e9]);
    expect((await fetch(`${gw.url}/api/v1/health`, { headers: { Authorization: `Bearer ${oat}` } })).status).toBe(200);

    const web = new WebClient(gw.url);
    await web.login("ada", "correct horse battery");
    const page = await web.dashboard();
    expect(page.html).toContain("agent connect");
    const wrong = await web.post("/password", { csrf: page.csrf, current: "nope-nope-nope", new: "new password 123", confirm: "new password 123" });
    expect(wrong.status).toBe(303);
    expect((await web.dashboard()).html).toContain("The current password is wrong.");
    await web.post("/password", { csrf: page.csrf, current: "correct horse battery", new: "new password 123", confirm: "different 123" });
    expect((await web.dashboard()).html).toContain("The new passwords do not match.");
    await web.post("/password", { csrf: page.csrf, current: "correct horse battery", new: "new password 123", confirm: "new password 123" });
    const after = await web.dashboard();
    expect(after.status).toBe(200);
    expect(after.html).toContain("Password changed.");
    expect((await other.get("/")).headers.get("location")).toBe("/login");
    expect((await fetch(`${gw.url}/api/v1/health`, { headers: { Authorization: `Bearer ${pat}` } })).status).toBe(401);
    expect((await fetch(`${gw.url}/api/v1/health`, { headers: { Authorization: `Bearer ${oat}` } })).status).toBe(401);
    expect((await sqlGet(gw.ctx.db, "SELECT revoked_at FROM oauth_refresh_tokens WHERE id = 'rt_1'"))).toEqual({ revoked_at: gw.clock.now() });
    expect((await new WebClient(gw.url).login("ada", "correct horse battery")).status).toBe(401);
    expect((await new WebClient(gw.url).login("ada", "new password 123")).status).toBe(303);
  });

  test("revoke another browser session from the dashboard", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", "correct horse battery");
    const laptop = new WebClient(gw.url);
    await laptop.login("ada", "correct horse battery");
    const phone = new WebClient(gw.url);
    await phone.login("ada", "correct horse battery");
    const page = await phone.dashboard();
    const otherId = [...page.html.matchAll(/action="\/sessions\/(wss_[^/]+)\/revoke"/g)].map((m) => m[1]!);
    expect(otherId).toHaveLength(1);
    await phone.post(`/sessions/${otherId[0]}/revoke`, { csrf: page.csrf });
    expect((await laptop.get("/")).status).toBe(303);
    expect((await phone.get("/")).status).toBe(200);
  });
});

describe("session timeouts (fake clock)", () => {
  test("idle timeout ends a quiet session; activity keeps it alive until the absolute limit", async () => {
    gw = await startTestGateway("", { auth: "  session: {idle_secs: 600, absolute_secs: 1500}\n" });
    await addUser(gw, "ada", "correct horse battery");
    const quiet = new WebClient(gw.url);
    await quiet.login("ada", "correct horse battery");
    const busy = new WebClient(gw.url);
    await busy.login("ada", "correct horse battery");
    gw.clock.advance(599_000);
    expect((await busy.get("/")).status).toBe(200);
    gw.clock.advance(1_000);
    expect((await quiet.get("/")).headers.get("location")).toBe("/login");
    gw.clock.advance(598_000);
    expect((await busy.get("/")).status).toBe(200);
    gw.clock.advance(301_000);
    expect((await busy.get("/")).status).toBe(200);
    gw.clock.advance(1_000);
    expect((await busy.get("/")).headers.get("location")).toBe("/login");
  });
});
