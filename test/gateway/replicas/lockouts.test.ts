// Login and device-approval limiters across two replicas on one PostgreSQL (issue 38 items 3 and 5): the
// failure counters live in the database, so failed attempts split over the replicas add up, a source locked
// on one is locked on the other (429 with Retry-After, as on one host), a burst spread over both cannot run
// more attempts than the limit, and a replica started afterwards honours the lock.
import { afterEach, describe, expect } from "bun:test";
import { pgTest } from "../../helpers/postgres.ts";
import { addUser, type TestGateway } from "../helpers.ts";
import { publicClient } from "../oauth-helpers.ts";
import { WebClient } from "../web-client.ts";
import { startReplicas, type Replicas } from "./two-replicas.ts";

const PASSWORD = "correct horse battery";
const AUTH = "  trusted_proxies: [127.0.0.1/32]\n  rate_limit: {max_attempts: 5, window_secs: 60, lockout_secs: 300}\n";

let r: Replicas | undefined;
afterEach(async () => {
  await r?.stop();
  r = undefined;
});

/** A sign-in on the web form from `ip` (behind the trusted proxy). */
async function webLogin(gw: TestGateway, ip: string, username: string, password: string): Promise<Response> {
  return new WebClient(gw.url, { "X-Forwarded-For": ip }).login(username, password);
}

/** A sign-in on the terminal route (`agent connect`) from `ip`. */
async function cliLogin(gw: TestGateway, client: string, ip: string, username: string, password: string): Promise<Response> {
  return fetch(`${gw.url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": ip },
    body: JSON.stringify({ client_id: client, username, password }),
  });
}

describe("two replicas on one PostgreSQL", () => {
  pgTest("failed logins alternating between the replicas lock the source on both after max_attempts; the lock holds on a replica started later and ends on the clock", async () => {
    r = await startReplicas(AUTH);
    const { a, b } = r;
    await addUser(a, "ada", PASSWORD);
    const client = await publicClient(a);
    const attacker = "203.0.113.5";
    // Five failures, alternating the web form on A and the terminal sign-in on B; a new name each time, so
    // only the per-source limiter is at stake (the per-account one counts each name once).
    for (let i = 0; i < 5; i++) {
      const res = i % 2 === 0 ? await webLogin(a, attacker, `nobody-${i}`, "wrong password") : await cliLogin(b, client, attacker, `nobody-${i}`, "wrong password");
      expect(res.status).toBe(401);
    }
    // The right password from that source is now refused on both replicas; another source signs in on both.
    const lockedWeb = await webLogin(a, attacker, "ada", PASSWORD);
    expect([lockedWeb.status, lockedWeb.headers.get("retry-after")]).toEqual([429, "300"]);
    const onB = await webLogin(b, attacker, "ada", PASSWORD);
    expect([onB.status, onB.headers.get("retry-after")]).toEqual([429, "300"]);
    const lockedCli = await cliLogin(a, client, attacker, "ada", PASSWORD);
    expect([lockedCli.status, lockedCli.headers.get("retry-after")]).toEqual([429, "300"]);
    expect((await webLogin(a, "198.51.100.4", "ada", PASSWORD)).status).toBe(303);
    expect((await cliLogin(b, client, "198.51.100.4", "ada", PASSWORD)).status).toBe(200);
    // A replica that starts now (its clock at the start instant, 0 s into the lock) refuses the source too.
    const c = await r.another();
    const onC = await webLogin(c, attacker, "ada", PASSWORD);
    expect([onC.status, onC.headers.get("retry-after")]).toEqual([429, "300"]);
    r.advance(299_000);
    expect((await webLogin(b, attacker, "ada", PASSWORD)).headers.get("retry-after")).toBe("1");
    r.advance(1_000);
    expect((await webLogin(b, attacker, "ada", PASSWORD)).status).toBe(303);
    expect((await cliLogin(a, client, attacker, "ada", PASSWORD)).status).toBe(200);
    const events = (await a.ctx.audit.list({ limit: 50 })).map((e) => `${e.action}:${e.outcome}:${e.source_ip}`);
    expect(events.filter((e) => e === `login:failure:${attacker}`)).toHaveLength(5);
    expect(events.filter((e) => e === `login:denied:${attacker}`)).toHaveLength(5);
  });

  pgTest("20 wrong sign-ins from one source at once, split over both replicas: exactly max_attempts are checked, the rest get 429", async () => {
    r = await startReplicas(AUTH);
    const { both } = r;
    const client = await publicClient(r.a);
    const attacker = "203.0.113.9";
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => cliLogin(both[i % 2]!, client, attacker, `nobody-${i}`, "wrong password")));
    const statuses = results.map((res) => res.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    const events = (await r.a.ctx.audit.list({ limit: 50 })).filter((e) => e.source_ip === attacker);
    expect(events.filter((e) => e.action === "login" && e.outcome === "failure")).toHaveLength(5);
    for (const gw of both) expect((await cliLogin(gw, client, attacker, "nobody", "wrong password")).status).toBe(429);
  });

  pgTest("the per-account counter adds up over the replicas: wrong passwords for one account from one network, alternating, back off the account on both", async () => {
    r = await startReplicas(AUTH);
    const { a, b, both } = r;
    await addUser(a, "ada", PASSWORD);
    // One failure from each of five addresses of 172.16.5.0/24: the per-source limiter never trips.
    for (let i = 0; i < 5; i++) expect((await webLogin(both[i % 2]!, `172.16.5.${i + 1}`, "ada", "wrong password")).status).toBe(401);
    for (const gw of [a, b]) {
      const res = await webLogin(gw, "172.16.5.77", "ada", PASSWORD);
      expect([res.status, res.headers.get("retry-after")]).toEqual([429, "60"]);
    }
    // Another network is not held back by this one's counter.
    expect((await webLogin(b, "198.51.100.4", "ada", PASSWORD)).status).toBe(303);
    r.advance(60_000);
    expect((await webLogin(a, "172.16.5.77", "ada", PASSWORD)).status).toBe(303);
  });

  pgTest("20 wrong passwords for one account at once from 20 addresses of one network, split over both replicas: only the network's free allowance is checked", async () => {
    r = await startReplicas(AUTH);
    const { a, both } = r;
    const client = await publicClient(a);
    await addUser(a, "ada", PASSWORD);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => cliLogin(both[i % 2]!, client, `172.16.7.${i + 1}`, "ada", "wrong password")));
    const statuses = results.map((res) => res.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    const failures = (await a.ctx.audit.list({ limit: 50 })).filter((e) => e.action === "login" && e.outcome === "failure");
    expect(failures).toHaveLength(5);
  });

  pgTest("wrong user codes on /device, alternating between the replicas, lock the source out of /device on both", async () => {
    r = await startReplicas(`${AUTH}  device_rate_limit: {max_attempts: 4, window_secs: 300, lockout_secs: 60}\n`);
    const { a, b, both } = r;
    await addUser(a, "ada", PASSWORD);
    const signedIn = await Promise.all(both.map(async (gw) => {
      const web = new WebClient(gw.url);
      expect((await web.login("ada", PASSWORD)).status).toBe(303);
      return web;
    }));
    for (let i = 0; i < 4; i++) expect((await signedIn[i % 2]!.get(`/device?user_code=BBBB-BBB${i}`)).status).toBe(404);
    for (const web of signedIn) {
      const res = await web.get("/device?user_code=BBBB-BBBB");
      expect([res.status, res.headers.get("retry-after")]).toEqual([429, "60"]);
    }
    r.advance(60_000);
    expect((await signedIn[1]!.get("/device?user_code=BBBB-BBBB")).status).toBe(404);
  });
});
