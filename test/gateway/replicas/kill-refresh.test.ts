// kill -9 a replica in the middle of a refresh-token rotation (issue 38 item 5). Replica A is the compiled
// binary (`agent gateway serve`), replica B a gateway in this process, both on one PostgreSQL database with
// one pepper file. The test holds a lock on the grant's row from its own connection, so A's rotation stops
// inside its transaction after it claimed the refresh token and before it stored the new access token;
// then A is killed. The client, which got no answer, retries the same refresh token on B: B waits for A's
// transaction, which PostgreSQL rolls back when it finds A's connection gone, and answers 200 with exactly
// one new token pair. The family is intact: the new refresh token rotates, and the old one presented again
// is reuse (its grant revoked), as on one host.
import { afterAll, describe, expect } from "bun:test";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { systemClock } from "../../../src/util/clock.ts";
import { sha256Hex } from "../../../src/util/ids.ts";
import { BINARY, ensureBinary } from "../../helpers/binary.ts";
import { freshPgDatabase, pgTest } from "../../helpers/postgres.ts";
import { addUser, startTestGateway, tempDir, type TestGateway } from "../helpers.ts";
import { publicClient } from "../oauth-helpers.ts";

const PASSWORD = "correct horse battery staple";

/** Polls `done` every 20 ms for at most 30 s, failing with `what` when it never holds. */
async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  for (const end = Date.now() + 30_000; !(await done()); await Bun.sleep(20)) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
  }
}

/** `agent gateway serve` on `config`; resolves with its URL once it listens. */
async function serveBinary(config: string): Promise<{ proc: Bun.Subprocess<"ignore", "pipe", "pipe">; url: string }> {
  const proc = Bun.spawn([BINARY, "gateway", "serve", "--config", config], { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" } });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!/database: .*\n/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`agent gateway serve exited early: ${out} ${await new Response(proc.stderr).text()}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { proc, url: /listening on (\S+)/.exec(out)![1]! };
}

describe("kill -9 a replica mid-refresh-rotation", () => {
  let b: TestGateway | undefined;
  let a: Bun.Subprocess | undefined;
  const connections: SQL[] = [];
  afterAll(async () => {
    a?.kill(9);
    for (const sql of connections) await sql.close();
    await b?.stop();
  });

  pgTest("the other replica serves the retry: one new token pair, A's half-done rotation rolled back, the family intact", async () => {
    ensureBinary();
    const url = await freshPgDatabase();
    const dir = tempDir("gw-kill-");
    const pepper = join(dir, "pepper");
    writeFileSync(pepper, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
    // B first (it migrates the database and records the pepper), on the real clock as A is.
    b = await startTestGateway("host_name: replica-b\n", { database: url, auth: `    pepper_file: ${pepper}\n`, clock: systemClock });
    const config = join(dir, "a.yaml");
    writeFileSync(
      config,
      `host_name: replica-a\ndata_dir: ${join(dir, "a-data")}\ndatabase:\n  url: ${url}\nlisten:\n  address: 127.0.0.1\n  port: 0\nauth:\n  password:\n    pepper_file: ${pepper}\n    memory_kib: 8192\n    time_cost: 1\n`,
    );
    const started = await serveBinary(config);
    a = started.proc;

    await addUser(b, "alice", PASSWORD);
    const client = await publicClient(b);
    const login = await fetch(`${b.url}/api/v1/auth/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ client_id: client, username: "alice", password: PASSWORD }) });
    expect(login.status).toBe(200);
    const first = (await login.json()) as { refresh_token: string };
    const refresh = (on: string, token: string) =>
      fetch(`${on}/api/v1/oauth/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: token, client_id: client }).toString() });

    const sql = new SQL(url);
    connections.push(sql);
    const [issued] = (await sql`SELECT id, grant_id, family_id FROM oauth_refresh_tokens WHERE token_hash = ${sha256Hex(first.refresh_token)}`) as { id: string; grant_id: string; family_id: string }[];
    const grant = issued!.grant_id;
    const accessTokens = async () => Number(((await sql`SELECT count(*)::int AS n FROM oauth_access_tokens WHERE grant_id = ${grant}`) as { n: number }[])[0]!.n);
    expect(await accessTokens()).toBe(1);

    // The grant's row locked FOR UPDATE: a new access token's foreign key check waits for it.
    const holder = await sql.reserve();
    await holder`BEGIN`;
    await holder`SELECT id FROM oauth_grants WHERE id = ${grant} FOR UPDATE`;
    const onA = refresh(started.url, first.refresh_token).then(
      (res) => `A answered ${res.status}`,
      () => "no answer",
    );
    // A's transaction claimed the refresh token and waits to store the access token: a backend waiting on a lock in that insert.
    const waitingInsert = async () =>
      ((await sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE 'insert into "oauth_access_tokens"%'`) as { n: number }[])[0]!.n === 1;
    await until("A's rotation waits inside its transaction", waitingInsert);
    a.kill(9);
    await a.exited;
    expect(await onA).toBe("no answer");

    // The client retries on B. B's claim waits for A's open transaction until PostgreSQL ends it.
    const onB = refresh(b.url, first.refresh_token);
    await holder`ROLLBACK`;
    holder.release();
    const retried = await onB;
    const body = (await retried.json()) as { access_token: string; refresh_token: string };
    expect(retried.status).toBe(200);
    expect(body.refresh_token).toStartWith("rt_");

    // Exactly one rotation happened: the old token used once, one child, one new access token.
    const family = (await sql`SELECT id, parent_id, used_at, revoked_at, token_hash FROM oauth_refresh_tokens WHERE family_id = ${issued!.family_id} ORDER BY created_at, id`) as {
      id: string;
      parent_id: string | null;
      used_at: string | null;
      revoked_at: string | null;
      token_hash: string;
    }[];
    expect(family.map((r) => ({ id: r.id === issued!.id ? "first" : r.parent_id === issued!.id ? "child" : r.id, used: r.used_at !== null, revoked: r.revoked_at !== null }))).toEqual([
      { id: "first", used: true, revoked: false },
      { id: "child", used: false, revoked: false },
    ]);
    expect(family[1]!.token_hash).toBe(sha256Hex(body.refresh_token));
    expect(await accessTokens()).toBe(2);
    expect((await fetch(`${b.url}/api/v1/projects`, { headers: { Authorization: `Bearer ${body.access_token}` } })).status).toBe(200);

    // The family carries on, and the old token presented again is reuse: the whole grant is revoked.
    const next = await refresh(b.url, body.refresh_token);
    expect(next.status).toBe(200);
    const latest = (await next.json()) as { access_token: string; refresh_token: string };
    const replay = await refresh(b.url, first.refresh_token);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe("invalid_grant");
    expect((await refresh(b.url, latest.refresh_token)).status).toBe(400);
    expect((await fetch(`${b.url}/api/v1/projects`, { headers: { Authorization: `Bearer ${latest.access_token}` } })).status).toBe(401);
  });
});
