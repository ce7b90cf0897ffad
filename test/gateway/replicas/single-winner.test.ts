// Single-winner operations across two replicas on one PostgreSQL (issue 38 items 3 and 5): refresh
// rotation, device code redemption and approval. Each claims its row with one conditional UPDATE (inside
// db.tx, which holds the gateway's transaction advisory lock on PostgreSQL, where it issues tokens), so a
// race split over two replicas has one winner, as on one host. Requests go over HTTP to both replicas at once.
import { afterEach, describe, expect } from "bun:test";
import { count, eq } from "drizzle-orm";
import { sha256Hex } from "../../../src/util/ids.ts";
import { deviceGrantId } from "../../../src/gateway/oauth/device-flow.ts";
import { pgTest } from "../../helpers/postgres.ts";
import { addUser, type TestGateway } from "../helpers.ts";
import { call, DEVICE_GRANT, publicClient } from "../oauth-helpers.ts";
import { WebClient } from "../web-client.ts";
import { startReplicas, type Replicas } from "./two-replicas.ts";

const PASSWORD = "correct horse battery";
// Neither the token endpoint's budget nor the device limiter (the losers of a decision count a failure on it) is at stake here.
const AUTH = "  oauth_token_rate_limit: {max_attempts: 1000, window_secs: 60, lockout_secs: 60}\n  device_rate_limit: {max_attempts: 1000, window_secs: 60, lockout_secs: 60}\n";

let r: Replicas | undefined;
afterEach(async () => {
  await r?.stop();
  r = undefined;
});

const health = (gw: TestGateway, token: string) => fetch(`${gw.url}/api/v1/health`, { headers: { Authorization: `Bearer ${token}` } });
const poll = (gw: TestGateway, client: string, deviceCode: string) => call(gw, "token", { grant_type: DEVICE_GRANT, client_id: client, device_code: deviceCode });

/** A web client signed in as ada on `gw`, with the approval form of the /device page for `userCode`. */
async function deviceForm(gw: TestGateway, userCode: string): Promise<{ web: WebClient; form: Record<string, string> }> {
  const web = new WebClient(gw.url);
  expect((await web.login("ada", PASSWORD)).status).toBe(303);
  const page = await web.get(`/device?user_code=${userCode}`);
  expect(page.status).toBe(200);
  return { web, form: { csrf: WebClient.csrf(await page.text()), user_code: userCode, scope_machine: "1", scope_project: "1" } };
}

async function tokensIssuedFor(gw: TestGateway, grantId: string): Promise<number> {
  const { oauthAccessTokens } = gw.ctx.db.t;
  return (await gw.ctx.db.select({ n: count() }).from(oauthAccessTokens).where(eq(oauthAccessTokens.grantId, grantId)))[0]!.n;
}

describe("two replicas on one PostgreSQL", () => {
  pgTest("20 concurrent refreshes of one refresh token split over two replicas: exactly one 200, 19 invalid_grant, and the family is revoked on both", async () => {
    r = await startReplicas(AUTH);
    const { a, b, both } = r;
    await addUser(a, "ada", PASSWORD);
    const client = await publicClient(a);
    const signIn = await fetch(`${a.url}/api/v1/auth/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ client_id: client, username: "ada", password: PASSWORD }) });
    expect(signIn.status).toBe(200);
    const tokens = (await signIn.json()) as { access_token: string; refresh_token: string };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call(both[i % 2]!, "token", { grant_type: "refresh_token", client_id: client, refresh_token: tokens.refresh_token })));
    const winners = results.filter((res) => res.status === 200);
    expect(winners).toHaveLength(1);
    const losers = results.filter((res) => res.status !== 200);
    expect(losers.map((res) => [res.status, res.body.error])).toEqual(Array.from({ length: 19 }, () => [400, "invalid_grant"]));
    // As on one host: the server cannot tell which party is legitimate, so the winner's tokens die with the family.
    for (const gw of both) {
      expect((await health(gw, winners[0]!.body.access_token)).status).toBe(401);
      expect((await health(gw, tokens.access_token)).status).toBe(401);
    }
    expect((await call(b, "token", { grant_type: "refresh_token", client_id: client, refresh_token: winners[0]!.body.refresh_token })).body.error).toBe("invalid_grant");
    // One rotation happened: the family holds the original token and the one its winner received.
    const { oauthRefreshTokens } = a.ctx.db.t;
    const family = await a.ctx.db.select().from(oauthRefreshTokens);
    expect(family).toHaveLength(2);
    expect(family.filter((rt) => rt.usedAt !== null)).toHaveLength(1);
    expect(family.every((rt) => rt.revokedAt !== null)).toBe(true);
    expect((await a.ctx.audit.list({ limit: 50 })).filter((e) => e.action === "oauth.refresh_reuse").length).toBeGreaterThanOrEqual(1);
  });

  pgTest("a device code approved on A while B and A poll it at once: exactly one token response, one grant, one access token; a second redemption, even racing the first, revokes that grant", async () => {
    r = await startReplicas(AUTH);
    const { a, b } = r;
    await addUser(a, "ada", PASSWORD);
    const client = await publicClient(a);
    let replays = 0;
    // Several codes, so the approval lands before, between and after the polls in some of them.
    for (let round = 0; round < 8; round++) {
      const started = (await call(a, "device_authorization", { client_id: client })).body as { device_code: string; user_code: string; interval: number };
      const { web, form } = await deviceForm(a, started.user_code);
      const [approved, ...first] = await Promise.all([web.post("/device/approve", form), poll(b, client, started.device_code), poll(a, client, started.device_code)]);
      expect(approved.status).toBe(303);
      const polls = [...first];
      if (!polls.some((p) => p.status === 200)) {
        // The approval landed after both polls: both replicas poll again at once, past the interval (which
        // the first round's second poll may have raised by 5 s with slow_down).
        r.advance((started.interval + 10) * 1000);
        polls.push(...(await Promise.all([poll(b, client, started.device_code), poll(a, client, started.device_code)])));
      }
      const winners = polls.filter((p) => p.status === 200);
      expect(winners).toHaveLength(1);
      for (const p of polls.filter((p) => p.status !== 200)) expect(["authorization_pending", "slow_down", "invalid_grant"]).toContain(p.body.error);
      // A code redeemed twice has leaked, whether the second poll came after the first or raced it: the
      // grant it issued is revoked on both replicas (its tokens were already in the winner's hands).
      const replayed = polls.some((p) => p.body?.error === "invalid_grant");
      for (const gw of [a, b]) expect((await health(gw, winners[0]!.body.access_token)).status).toBe(replayed ? 401 : 200);
      if (replayed) replays++;
      const grantId = deviceGrantId(sha256Hex(started.device_code), (await a.ctx.db.select().from(a.ctx.db.t.oauthDeviceCodes).where(eq(a.ctx.db.t.oauthDeviceCodes.userCode, started.user_code)))[0]!.createdAt);
      expect(await tokensIssuedFor(a, grantId)).toBe(1);
      const { oauthGrants } = a.ctx.db.t;
      expect(await a.ctx.db.select().from(oauthGrants).where(eq(oauthGrants.id, grantId))).toHaveLength(1);
      r.advance(60_000);
    }
    expect(replays).toBeGreaterThan(0);
  });

  pgTest("approvals and denials of one request on A and B at once: one decision wins, the others are told it was decided elsewhere, and the device gets that outcome", async () => {
    r = await startReplicas(AUTH);
    const { a, b } = r;
    await addUser(a, "ada", PASSWORD);
    const client = await publicClient(a);
    // Four people's browsers, two on each replica: approve on A, deny on B, deny on A, approve on B.
    const deciders = await Promise.all(
      ([[a, "approve"], [b, "deny"], [a, "deny"], [b, "approve"]] as const).map(async ([gw, verb]) => {
        const web = new WebClient(gw.url);
        expect((await web.login("ada", PASSWORD)).status).toBe(303);
        return { web, verb };
      }),
    );
    for (let round = 0; round < 6; round++) {
      const started = (await call(a, "device_authorization", { client_id: client })).body as { device_code: string; user_code: string };
      const forms = await Promise.all(deciders.map(async ({ web }) => ({ csrf: WebClient.csrf(await (await web.get(`/device?user_code=${started.user_code}`)).text()), user_code: started.user_code, scope_machine: "1" })));
      const posted = await Promise.all(deciders.map(({ web, verb }, i) => web.post(`/device/${verb}`, forms[i]!)));
      expect(posted.map((res) => res.status)).toEqual([303, 303, 303, 303]);
      const [row] = await a.ctx.db.select().from(a.ctx.db.t.oauthDeviceCodes).where(eq(a.ctx.db.t.oauthDeviceCodes.userCode, started.user_code));
      expect(["approved", "denied"]).toContain(row!.status);
      // Exactly one page said it decided the request, and what it said is what was stored.
      const said: string[] = [];
      for (const { web } of deciders) {
        const html = await (await web.get("/device")).text();
        if (html.includes("Approved:")) said.push("approved");
        if (html.includes("Denied:")) said.push("denied");
      }
      expect(said).toEqual([row!.status]);
      r.advance(10_000);
      const answer = await poll(b, client, started.device_code);
      if (row!.status === "approved") expect(answer.status).toBe(200);
      else expect(answer.body.error).toBe("access_denied");
    }
  });
});
