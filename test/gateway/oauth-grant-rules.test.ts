// Checklist rows of the device grant (RFC 8628), refresh rotation (RFC 9700) and revocation (RFC 7009),
// on the gateway's fake clock: slow_down persistence, single use, client binding, expiry, denial, scope
// rules, reuse revoking the family, 20 concurrent refreshes, revocation semantics, project-only tokens.
import { afterEach, describe, expect, test } from "bun:test";
import { addUser, startTestGateway, type TestGateway, sqlGet } from "./helpers.ts";
import { call, decide, DEVICE_GRANT, publicClient } from "./oauth-helpers.ts";
import { WebClient } from "./web-client.ts";
import { newUserCode, USER_CODE_ALPHABET } from "../../src/gateway/oauth/codes.ts";
import { sha256Hex } from "../../src/util/ids.ts";

let gw: TestGateway;
afterEach(() => gw?.stop());

async function setup(auth = ""): Promise<{ client: string; web: WebClient }> {
  gw = await startTestGateway("", { auth: `  oauth_token_rate_limit: {max_attempts: 1000, window_secs: 60, lockout_secs: 60}\n${auth}` });
  await addUser(gw, "ada", "correct horse battery");
  const web = new WebClient(gw.url);
  await web.login("ada", "correct horse battery");
  return { client: await publicClient(gw), web };
}

const start = async (client: string, scope?: string) => (await call(gw, "device_authorization", scope ? { client_id: client, scope } : { client_id: client })).body;
const poll = (client: string, deviceCode: string) => call(gw, "token", { grant_type: DEVICE_GRANT, client_id: client, device_code: deviceCode });
const refresh = (client: string, token: string, scope?: string) => call(gw, "token", { grant_type: "refresh_token", client_id: client, refresh_token: token, ...(scope ? { scope } : {}) });
const health = (token: string) => fetch(`${gw.url}/api/v1/health`, { headers: { Authorization: `Bearer ${token}` } });

async function deviceTokens(client: string, web: WebClient, scopes = ["machine", "project"]): Promise<any> {
  const started = await start(client);
  await decide(gw, web, started.user_code, true, scopes);
  const res = await poll(client, started.device_code);
  expect(res.status).toBe(200);
  return res.body;
}

describe("device authorization grant", () => {
  test("slow_down adds 5 s to the interval, stored on the code for every later poll", async () => {
    const { client, web } = await setup();
    const { device_code, user_code } = await start(client);
    expect((await poll(client, device_code)).body.error).toBe("authorization_pending");
    expect((await poll(client, device_code)).body.error).toBe("slow_down"); // at once: interval 5 -> 10
    gw.clock.advance(6_000);
    expect((await poll(client, device_code)).body.error).toBe("slow_down"); // 6 s < 10 s: 10 -> 15
    gw.clock.advance(14_000);
    expect((await poll(client, device_code)).body.error).toBe("slow_down"); // 14 s < 15 s: 15 -> 20
    gw.clock.advance(20_000);
    expect((await poll(client, device_code)).body.error).toBe("authorization_pending");
    await decide(gw, web, user_code, true);
    gw.clock.advance(19_000);
    expect((await poll(client, device_code)).body.error).toBe("slow_down");
    gw.clock.advance(25_000);
    expect((await poll(client, device_code)).status).toBe(200);
  });

  test("a device code is used once, and only by the client it was issued to", async () => {
    const { client, web } = await setup();
    const other = await publicClient(gw);
    const { device_code, user_code } = await start(client);
    await decide(gw, web, user_code, true);
    const stolen = await poll(other, device_code);
    expect(stolen.body.error).toBe("invalid_grant");
    expect((await poll(client, device_code)).status).toBe(200);
    gw.clock.advance(10_000);
    const again = await poll(client, device_code);
    expect(again.body).toEqual({ error: "invalid_grant", error_description: "the device code was already used; the tokens issued for it are now revoked" });
    expect((await poll(client, "made-up")).body.error).toBe("invalid_grant");
  });

  test("denied -> access_denied; expired (fake clock) -> expired_token; approval after expiry is impossible", async () => {
    const { client, web } = await setup();
    const denied = await start(client);
    await decide(gw, web, denied.user_code, false);
    expect((await poll(client, denied.device_code)).body.error).toBe("access_denied");
    const late = await start(client);
    expect(late.expires_in).toBe(900);
    gw.clock.advance(900_000);
    expect((await poll(client, late.device_code)).body.error).toBe("expired_token");
    expect((await web.get(`/device?user_code=${late.user_code}`)).status).toBe(404);
  });

  test("scope: validated against the client's registered scopes; omitted grants all of them; the page may narrow", async () => {
    const { web } = await setup();
    const projectOnly = await publicClient(gw, ["project"]);
    const bad = await call(gw, "device_authorization", { client_id: projectOnly, scope: "machine" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("invalid_scope");
    expect((await call(gw, "device_authorization", { client_id: projectOnly, scope: "root" })).body.error).toBe("invalid_scope");
    const all = await publicClient(gw);
    const omitted = await start(all);
    expect((await sqlGet(gw.ctx.db, "SELECT scopes FROM oauth_device_codes WHERE user_code = ?", [omitted.user_code]))).toEqual({ scopes: '["machine","project"]' });
    await decide(gw, web, omitted.user_code, true, ["project"]);
    const tokens = (await poll(all, omitted.device_code)).body;
    expect(tokens.scope).toBe("project");
  });

  test("a project-only token gets 403 on management, proxy and fleet routes, and works where project suffices", async () => {
    const { client, web } = await setup();
    const tokens = await deviceTokens(client, web, ["project"]);
    const auth = { Authorization: `Bearer ${tokens.access_token}` };
    for (const path of ["/api/v1/configurations", "/api/v1/projects", "/api/v1/sessions", "/api/v1/catalog", "/api/v1/events"]) {
      const res = await fetch(`${gw.url}${path}`, { headers: auth });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: "insufficient_scope", message: "this route needs the 'machine' scope" });
    }
    // The session proxy needs `machine` too (or a daemon's own credential).
    const proxied = await fetch(`${gw.url}/api/v1/sessions/ses_x/proxy/sync`, { headers: auth });
    expect([proxied.status, (await proxied.json()).error]).toEqual([403, "insufficient_scope"]);
    expect((await fetch(`${gw.url}/api/v1/health`, { headers: auth })).status).toBe(200);
  });

  test("user codes: base-20 consonants, unique per live request", async () => {
    const { client } = await setup();
    const codes = new Set<string>();
    for (let i = 0; i < 15; i++) codes.add((await start(client)).user_code);
    expect(codes.size).toBe(15);
    for (const c of codes) expect(c).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
  });

  test("user code characters carry no modulo bias: bytes 240-255 are discarded, 0-239 map evenly", () => {
    // Every byte value in turn: a biased `byte % 20` would make the first 16 letters more frequent.
    let next = 0;
    const cycle = (n: number) => Uint8Array.from({ length: n }, () => next++ % 256);
    const counts = new Map<string, number>();
    for (let i = 0; i < 240 * 8; i++) for (const ch of newUserCode(cycle).replace("-", "")) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect([...counts.keys()].sort().join("")).toBe(USER_CODE_ALPHABET);
    expect(new Set(counts.values()).size).toBe(1);
    expect(newUserCode(() => Uint8Array.from([250, 255, 240, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]))).toBe("BCDF-GHJK");
  });
});

describe("refresh tokens", () => {
  test("bound to the client; scope may narrow but never widen; idle and absolute expiry from config", async () => {
    const { client, web } = await setup("  oauth: {refresh_token_idle_secs: 600, refresh_token_absolute_secs: 1000}\n");
    const first = await deviceTokens(client, web, ["project"]);
    const other = await publicClient(gw);
    expect((await refresh(other, first.refresh_token)).body.error).toBe("invalid_grant");
    expect((await refresh(client, first.refresh_token, "machine")).body.error).toBe("invalid_scope");
    gw.clock.advance(599_000);
    const second = (await refresh(client, first.refresh_token)).body;
    expect(second.scope).toBe("project");
    gw.clock.advance(600_000); // idle: 600 s without use
    expect((await refresh(client, second.refresh_token)).body).toEqual({ error: "invalid_grant", error_description: "the refresh token has expired" });
    const again = await deviceTokens(client, web);
    gw.clock.advance(500_000);
    const r2 = (await refresh(client, again.refresh_token)).body;
    gw.clock.advance(499_000);
    const r3 = (await refresh(client, r2.refresh_token)).body;
    gw.clock.advance(1_000); // absolute: 1000 s after the grant, however active
    expect((await refresh(client, r3.refresh_token)).body.error).toBe("invalid_grant");
  });

  test("20 concurrent refreshes of one token: exactly one succeeds; the rest are reuse and revoke the family", async () => {
    const { client, web } = await setup();
    const tokens = await deviceTokens(client, web);
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(client, tokens.refresh_token)));
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.body.error === "invalid_grant")).toHaveLength(19);
    // The server cannot tell which party is legitimate, so the winner's new tokens die with the family.
    expect((await health(winners[0]!.body.access_token)).status).toBe(401);
    expect((await refresh(client, winners[0]!.body.refresh_token)).body.error).toBe("invalid_grant");
    expect((await gw.ctx.audit.list({ limit: 5 })).some((e) => e.action === "oauth.refresh_reuse" && e.outcome === "denied")).toBe(true);
    // The losers' tokens, written beside their claims, were rolled back with them: the family holds the
    // first refresh token and the winner's, the grant the first access token and the winner's.
    const first = sha256Hex(tokens.refresh_token);
    expect(await sqlGet(gw.ctx.db, "SELECT count(*) AS n FROM oauth_refresh_tokens WHERE family_id = (SELECT family_id FROM oauth_refresh_tokens WHERE token_hash = ?)", [first])).toEqual({ n: 2 });
    expect(await sqlGet(gw.ctx.db, "SELECT count(*) AS n FROM oauth_access_tokens WHERE grant_id = (SELECT grant_id FROM oauth_refresh_tokens WHERE token_hash = ?)", [first])).toEqual({ n: 2 });
  });
});

describe("revocation (RFC 7009)", () => {
  test("200 with an empty body even for unknown tokens; hints are advisory; another client's token is untouched", async () => {
    const { client, web } = await setup();
    const tokens = await deviceTokens(client, web);
    const other = await publicClient(gw);
    const unknown = await call(gw, "revoke", { client_id: client, token: "oat_unknown" });
    expect([unknown.status, unknown.body]).toEqual([200, null]);
    const foreign = await call(gw, "revoke", { client_id: other, token: tokens.access_token });
    expect(foreign.status).toBe(200);
    expect((await health(tokens.access_token)).status).toBe(200);
    expect((await call(gw, "revoke", { client_id: client })).body.error).toBe("invalid_request");
    // A wrong hint does not stop the revocation.
    expect((await call(gw, "revoke", { client_id: client, token: tokens.access_token, token_type_hint: "refresh_token" })).status).toBe(200);
    expect((await health(tokens.access_token)).status).toBe(401);
    // Revoking only the access token leaves the refresh token usable.
    expect((await refresh(client, tokens.refresh_token)).status).toBe(200);
  });

  test("revoking a refresh token revokes its grant with every access token issued under it", async () => {
    const { client, web } = await setup();
    const first = await deviceTokens(client, web);
    const second = (await refresh(client, first.refresh_token)).body;
    expect((await call(gw, "revoke", { client_id: client, token: second.refresh_token, token_type_hint: "access_token" })).status).toBe(200);
    expect((await health(first.access_token)).status).toBe(401);
    expect((await health(second.access_token)).status).toBe(401);
    expect((await web.dashboard()).html).toContain("No applications hold a grant.");
  });
});
