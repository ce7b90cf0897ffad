// Two replicas on one PostgreSQL database (issue 38 item 3): a credential revoked through replica A is
// refused by replica B on its first request after B hears of it (a PAT through A's dashboard or the admin
// CLI, an OAuth access token through A's revoke endpoint), B's token cache is really used in between, a
// notification B missed while its listener was down is made up for by the cache clear on reconnection, and
// an event stream open on B ends when its token is revoked on A. "B hears of it" is waited for with a fence:
// a notification sent after the revocation committed, which B receives after every earlier one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SQL } from "bun";
import { eq } from "drizzle-orm";
import { CHANGES_CHANNEL, LISTENER_APPLICATION, PgChanges } from "../../../src/gateway/db/pg-changes.ts";
import type { Logger } from "../../../src/gateway/context.ts";
import { freshPgDatabase, PG_MISSING, pgTest } from "../../helpers/postgres.ts";
import { addUser, startTestGateway, tempDir, type TestGateway } from "../helpers.ts";
import { basic, call, confidentialClient } from "../oauth-helpers.ts";
import { WebClient } from "../web-client.ts";

const MAIN = resolve(import.meta.dir, "../../../src/cli/main.ts");

let database: string;
let pepperFile: string;
let a: TestGateway;
let b: TestGateway;
let admin: SQL;
/** B's structured log events, in order. */
const bEvents: string[] = [];
const bEventWaiters: { event: string; resolve: () => void }[] = [];

const bLogger: Logger = {
  info() {},
  warn() {},
  error() {},
  event(_level, event) {
    bEvents.push(event);
    for (const w of bEventWaiters.filter((w) => w.event === event)) {
      bEventWaiters.splice(bEventWaiters.indexOf(w), 1);
      w.resolve();
    }
  },
};
const nextEventOfB = (event: string) => new Promise<void>((resolve) => bEventWaiters.push({ event, resolve }));

beforeAll(async () => {
  if (PG_MISSING) return;
  database = await freshPgDatabase();
  pepperFile = join(tempDir("gw-pepper-"), "pepper");
  writeFileSync(pepperFile, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  const options = { database, auth: `    pepper_file: ${pepperFile}\n` };
  a = await startTestGateway("", options);
  b = await startTestGateway("", { ...options, logger: bLogger });
  admin = new SQL(database);
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await admin?.close();
});

function changesOf(gw: TestGateway): PgChanges {
  if (!(gw.ctx.stamp instanceof PgChanges)) throw new Error("the replica is not on PostgreSQL");
  return gw.ctx.stamp;
}

let fences = 0;
/** Resolves once B has received every notification committed before this call. */
async function fence(gw: TestGateway = b): Promise<void> {
  const payload = `fence ${++fences}`;
  const heard = new Promise<void>((resolve) => {
    const stop = changesOf(gw).onChange((table) => {
      if (table !== payload) return;
      stop();
      resolve();
    });
  });
  await admin`SELECT pg_notify(${CHANGES_CHANNEL}, ${payload})`;
  await heard;
}

const sessionsOn = async (gw: TestGateway, token: string) => (await fetch(`${gw.url}/api/v1/sessions`, { headers: { Authorization: `Bearer ${token}` } })).status;

/** A PAT that B has verified and cached, with no write pending: B's stamp stands still from here. */
async function patCachedOnB(username: string): Promise<{ id: string; token: string }> {
  const principal = await addUser(a, username, "correct horse battery");
  const { info, token } = await a.ctx.pats.create(principal, "replicas");
  expect(await sessionsOn(b, token)).toBe(200); // marks it used: a write, announced
  await fence();
  expect(await sessionsOn(b, token)).toBe(200); // verified again and cached
  return { id: info.id, token };
}

/** Revokes a PAT straight in the database with the triggers off: no replica is told (a missed notification). */
async function revokeUnannounced(id: string): Promise<void> {
  await admin.begin(async (tx) => {
    await tx`SET LOCAL session_replication_role = replica`;
    await tx`UPDATE personal_access_tokens SET revoked = true, revoked_at = 1 WHERE id = ${id}`;
  });
}

describe("revocation across replicas", () => {
  pgTest("B serves a known token from its cache: its stamp stands still, and a write nobody announces is not read", async () => {
    const { id, token } = await patCachedOnB("ada");
    const stamp = b.ctx.stamp.current();
    expect(await sessionsOn(b, token)).toBe(200);
    expect(await sessionsOn(b, token)).toBe(200);
    expect(b.ctx.stamp.current()).toBe(stamp);
    await revokeUnannounced(id);
    expect(await sessionsOn(b, token)).toBe(200); // from the cache: the database already says revoked
    await fence(); // any notification empties the cache
    expect(await sessionsOn(b, token)).toBe(401);
  });

  pgTest("a PAT revoked on A's dashboard is refused by B once B has heard of it", async () => {
    const web = new WebClient(a.url);
    const principal = await addUser(a, "bob", "correct horse battery");
    expect((await web.login("bob", "correct horse battery")).status).toBe(303);
    const { info, token } = await a.ctx.pats.create(principal, "dashboard");
    expect(await sessionsOn(b, token)).toBe(200);
    await fence();
    expect(await sessionsOn(b, token)).toBe(200);
    const stamp = b.ctx.stamp.current();
    expect((await web.post(`/tokens/${info.id}/revoke`, { csrf: (await web.dashboard()).csrf })).status).toBe(303);
    await changesOf(b).movedPast(stamp);
    expect(await sessionsOn(b, token)).toBe(401);
  });

  pgTest("a PAT revoked with the admin CLI is refused by B once B has heard of it", async () => {
    const { id, token } = await patCachedOnB("carol");
    const dir = tempDir("gw-cli-");
    const config = join(dir, "gateway-config.yaml");
    writeFileSync(config, `data_dir: ${join(dir, "data")}\ndatabase:\n  url: ${database}\nauth:\n  password:\n    pepper_file: ${pepperFile}\n`);
    const stamp = b.ctx.stamp.current();
    const run = Bun.spawnSync(["bun", MAIN, "gateway", "token", "revoke", id, "--config", config], { env: { ...process.env, XDG_CONFIG_HOME: join(dir, "cfg"), XDG_DATA_HOME: join(dir, "xdg") } });
    expect(run.exitCode, run.stderr.toString()).toBe(0);
    await changesOf(b).movedPast(stamp);
    expect(await sessionsOn(b, token)).toBe(401);
  });

  pgTest("an OAuth access token revoked on A's revoke endpoint is refused by B once B has heard of it", async () => {
    const [id, secret] = await confidentialClient(a, ["machine"]);
    const token = (await call(a, "token", { grant_type: "client_credentials" }, { Authorization: basic(id, secret) })).body.access_token as string;
    expect(await sessionsOn(b, token)).toBe(200);
    await fence();
    expect(await sessionsOn(b, token)).toBe(200);
    const stamp = b.ctx.stamp.current();
    expect((await call(a, "revoke", { token }, { Authorization: basic(id, secret) })).status).toBe(200);
    await changesOf(b).movedPast(stamp);
    expect(await sessionsOn(b, token)).toBe(401);
  });

  pgTest("B's own revocation is refused by B on its next request without waiting for a notification; A learns of it from the notification", async () => {
    const single = await patCachedOnB("frank");
    const inTx = await patCachedOnB("grace");
    for (const { token } of [single, inTx]) expect(await sessionsOn(a, token)).toBe(200);
    await fence(a); // (heard by B too, which empties its cache)
    // Both replicas hold both tokens in their caches now.
    for (const gw of [a, b]) for (const { token } of [single, inTx]) expect(await sessionsOn(gw, token)).toBe(200);
    // No notification at all: only B's record of its own writes can empty its cache.
    await admin.unsafe("ALTER TABLE personal_access_tokens DISABLE TRIGGER agent_gateway_changes");
    try {
      await b.ctx.pats.revoke(single.id);
      expect(await sessionsOn(b, single.token)).toBe(401);
      expect(await sessionsOn(b, inTx.token)).toBe(200); // cached again (the write above emptied B's cache)
      const { personalAccessTokens } = b.ctx.db.t;
      await b.ctx.db.tx((tx) => tx.update(personalAccessTokens).set({ revoked: true, revokedAt: 1 }).where(eq(personalAccessTokens.id, inTx.id)));
      expect(await sessionsOn(b, inTx.token)).toBe(401);
      for (const { token } of [single, inTx]) expect(await sessionsOn(a, token)).toBe(200); // never told
    } finally {
      await admin.unsafe("ALTER TABLE personal_access_tokens ENABLE TRIGGER agent_gateway_changes");
    }
    await fence(a);
    for (const { token } of [single, inTx]) expect(await sessionsOn(a, token)).toBe(401);
  });

  pgTest("a revocation B missed while its listener was down is honoured once the listener is back", async () => {
    const { id, token } = await patCachedOnB("dave");
    await revokeUnannounced(id);
    expect(await sessionsOn(b, token)).toBe(200); // cached, and never told
    const lost = nextEventOfB("database.listener_lost");
    const restored = nextEventOfB("database.listener_restored");
    await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = ${LISTENER_APPLICATION}`;
    await lost;
    await restored;
    expect(await sessionsOn(b, token)).toBe(401);
    // B trusts its cache again: a known token is served without the stamp moving.
    const kept = await patCachedOnB("erin");
    const stamp = b.ctx.stamp.current();
    expect(await sessionsOn(b, kept.token)).toBe(200);
    expect(b.ctx.stamp.current()).toBe(stamp);
  });

  pgTest("an event stream open on B ends when its token is revoked on A", async () => {
    const [id, secret] = await confidentialClient(a, ["machine"]);
    const token = (await call(a, "token", { grant_type: "client_credentials" }, { Authorization: basic(id, secret) })).body.access_token as string;
    const res = await fetch(`${b.url}/api/v1/events`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(b.ctx.streams.size).toBe(1);
    const reader = res.body!.getReader();
    const ended = (async () => {
      for (;;) if ((await reader.read()).done) return;
    })();
    expect((await call(a, "revoke", { token }, { Authorization: basic(id, secret) })).status).toBe(200);
    await ended;
    expect(b.ctx.streams.size).toBe(0);
  });
});
