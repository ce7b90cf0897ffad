// The database going away under load (issue 38 item 5; gateway.md, authentication rule 2). PostgreSQL is
// stopped and started again (`pg_ctl stop -m fast`, then `-m immediate`) while clients keep calling a
// gateway with every kind of credential: every request that needs the database during the outage gets 503
// with a body that names nothing of it, never a 500 and never a 200 for a request that could not be
// authenticated; the gateway recovers by itself once the server is back, and a refresh token refused during
// the outage still works after it. Sign-ins refused during an outage do not count toward the login limiter.
// A token cache filled before the outage serves nothing during it and is emptied when the change listener
// reconnects. `agent gateway serve` rides an outage out and serves again without a restart. SQLite locked
// past its busy timeout is a 503 too.
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PgChanges } from "../../../src/gateway/db/pg-changes.ts";
import { DATABASE_UNAVAILABLE_BODY } from "../../../src/gateway/server/errors.ts";
import { BINARY, ensureBinary } from "../../helpers/binary.ts";
import { freshPgDatabase, PG_MISSING, pgTest, startPgServer, type ControlledPgServer } from "../../helpers/postgres.ts";
import { addUser, sqliteOnlyTest, startTestGateway, tempDir, type TestGateway } from "../helpers.ts";
import { basic, confidentialClient, publicClient } from "../oauth-helpers.ts";
import { WebClient } from "../web-client.ts";

const PASSWORD = "correct horse battery staple";
const NAME = "Outage GW";
/** The load signs in many times from one address: the limiters must not stop it (the limiter has a test of its own below). */
const LIMITS = "  rate_limit:\n    max_attempts: 1000000\n  oauth_token_rate_limit:\n    max_attempts: 1000000\n";

const AUTH_503 = { error: "unavailable", message: "authentication is temporarily unavailable" };
const OAUTH_503 = { error: "temporarily_unavailable", error_description: DATABASE_UNAVAILABLE_BODY.message };
const HEALTH_503 = { status: "unavailable", name: NAME, migrated_at_startup: true, database: "unavailable" };
const HTML_503 = "html 503";

interface Answer {
  status: number;
  text: string;
}

/** A kind of request the load sends: its answer while the database is up, and its 503 body while it is down. */
interface Kind {
  name: string;
  send(): Promise<Answer>;
  up: number;
  /**
   * The exact JSON body of its 503 (a list: any of them), HTML_503 for a web page; a status instead when the
   * database is not needed.
   */
  down: unknown;
  /** Could not be authenticated: a 200 would let it through. */
  refused?: boolean;
}

interface Sample {
  kind: string;
  status: number;
  text: string;
  /** The load's phase when the request was sent and when its answer came. */
  from: number;
  to: number;
}

const answer = async (res: Response): Promise<Answer> => ({ status: res.status, text: await res.text() });

/** A terminal sign-in (POST /api/v1/auth/login) of alice through the public client `client`. */
const cliLogin = (gw: TestGateway, client: string, password = PASSWORD) =>
  fetch(`${gw.url}/api/v1/auth/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ client_id: client, username: "alice", password }) });

const bearerGet = (gw: TestGateway, token: string, path = "/api/v1/projects") => fetch(`${gw.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });

const formPost = (body: Record<string, string>, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
  body: new URLSearchParams(body).toString(),
});

/** Polls `done` (every 20 ms, at most `ms`), failing with `what` and what `state` says when it never holds. */
async function until(what: string, done: () => boolean, state: () => string = () => "", ms = 30_000): Promise<void> {
  for (const end = Date.now() + ms; !done(); await Bun.sleep(20)) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}${state()}`);
  }
}

describe("PostgreSQL restarted under load", () => {
  let pg: ControlledPgServer;
  let url: string;
  let gw: TestGateway;
  const logged: string[] = [];

  beforeAll(async () => {
    if (PG_MISSING) return;
    pg = startPgServer();
    url = await freshPgDatabase(pg);
    const logger = { info: () => {}, warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m), event: (_l: string, event: string, fields: Record<string, unknown>) => logged.push(`${event} ${JSON.stringify(fields)}`) };
    gw = await startTestGateway(`display_name: ${NAME}\n`, { auth: LIMITS, database: url, logger });
  });
  afterAll(async () => {
    await gw?.stop();
    if (pg?.running) pg.stop("immediate");
  });

  for (const mode of ["fast", "immediate"] as const) {
    pgTest(`pg_ctl stop -m ${mode}: 503 without internals during the outage, never a 500 or an unauthenticated 200; back by itself`, async () => {
      const uid = (await gw.ctx.principals.find("alice"))?.id ?? (await addUser(gw, "alice", PASSWORD));
      const { token: pat } = await gw.ctx.pats.create(uid, `load ${mode}`);
      const revoked = await gw.ctx.pats.create(uid, `revoked ${mode}`);
      await gw.ctx.pats.revoke(revoked.info.id);
      const client = await publicClient(gw);
      const [ccId, ccSecret] = await confidentialClient(gw);
      const signIn = async () => {
        const res = await cliLogin(gw, client);
        expect(res.status).toBe(200);
        return (await res.json()) as { access_token: string; refresh_token: string };
      };
      const { access_token: oat } = await signIn();
      let refreshToken = (await signIn()).refresh_token;
      const web = new WebClient(gw.url);
      expect((await web.login("alice", PASSWORD)).status).toBe(303);
      const bearer = (token: string, path?: string) => async () => answer(await bearerGet(gw, token, path));

      let refreshing = false;
      const kinds: Kind[] = [
        { name: "health", send: async () => answer(await fetch(`${gw.url}/api/v1/health`)), up: 200, down: HEALTH_503 },
        // A token verified from the cache just before the listener noticed the outage passes the check, and
        // the route's own query answers the app's 503: either body, never a 200 or a 500.
        { name: "pat", send: bearer(pat), up: 200, down: [AUTH_503, DATABASE_UNAVAILABLE_BODY] },
        { name: "oauth access token", send: bearer(oat), up: 200, down: [AUTH_503, DATABASE_UNAVAILABLE_BODY] },
        { name: "revoked pat", send: bearer(revoked.token), up: 401, down: AUTH_503, refused: true },
        { name: "unknown pat", send: bearer(`pat_${"A".repeat(43)}`), up: 401, down: AUTH_503, refused: true },
        { name: "no token", send: async () => answer(await fetch(`${gw.url}/api/v1/projects`)), up: 401, down: 401, refused: true },
        { name: "session GET", send: bearer(pat, "/api/v1/sessions/ses_01JAAAAAAAAAAAAAAAAAAAAAAA"), up: 404, down: [AUTH_503, DATABASE_UNAVAILABLE_BODY] },
        { name: "client_credentials", send: async () => answer(await fetch(`${gw.url}/api/v1/oauth/token`, formPost({ grant_type: "client_credentials" }, { Authorization: basic(ccId, ccSecret) }))), up: 200, down: OAUTH_503 },
        {
          name: "refresh",
          // One refresh in flight at a time: the chain's token is presented again only after a refusal.
          send: async () => {
            if (refreshing) return { status: -1, text: "" };
            refreshing = true;
            try {
              const res = await answer(await fetch(`${gw.url}/api/v1/oauth/token`, formPost({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: client })));
              if (res.status === 200) refreshToken = JSON.parse(res.text).refresh_token;
              return res;
            } finally {
              refreshing = false;
            }
          },
          up: 200,
          down: OAUTH_503,
        },
        // Refused by the limiter's read (the app's 503) or inside the sign-in check (the authentication 503).
        { name: "cli login", send: async () => answer(await cliLogin(gw, client)), up: 200, down: [DATABASE_UNAVAILABLE_BODY, AUTH_503] },
        { name: "web dashboard", send: async () => answer(await web.get("/")), up: 200, down: HTML_503 },
        {
          name: "web login",
          send: async () => {
            const fresh = new WebClient(gw.url);
            const page = await fresh.get("/login");
            const html = await page.text();
            if (page.status !== 200) return { status: page.status, text: html };
            return answer(await fresh.post("/login", { csrf: WebClient.csrf(html), username: "alice", password: PASSWORD }));
          },
          up: 303,
          down: HTML_503,
        },
      ];

      let phase = 0; // 0 up, 1 down, 2 restarted
      const samples: Sample[] = [];
      let loading = true;
      const worker = async (offset: number) => {
        for (let i = offset; loading; i++) {
          const kind = kinds[i % kinds.length]!;
          const from = phase;
          const { status, text } = await kind.send();
          if (status !== -1) samples.push({ kind: kind.name, status, text, from, to: phase });
        }
      };
      const workers = [0, 3, 6, 9].map(worker);
      const count = (name: string, p: number, status?: number) => samples.filter((s) => s.kind === name && s.from === p && s.to === p && (status === undefined || s.status === status)).length;
      /** The kinds `missing` says are not there yet, each with its last answer. */
      const lagging = (missing: (k: Kind) => boolean) => () =>
        kinds
          .filter(missing)
          .map((k) => {
            const last = samples.findLast((s) => s.kind === k.name);
            return `\n  ${k.name}: last answered ${last ? `${last.status} ${last.text.slice(0, 160)}` : "nothing"}`;
          })
          .join("");
      try {
        const answeredIn = (p: number, n: number, status?: (k: Kind) => number) => (k: Kind) => count(k.name, p, status?.(k)) >= n;
        await until("every kind was answered while the database was up", () => kinds.every(answeredIn(0, 1)), lagging((k) => !answeredIn(0, 1)(k)));
        // pg_ctl returns once the server is down; the gateway's event loop waits meanwhile.
        pg.stop(mode);
        phase = 1;
        await until("every kind was answered twice during the outage", () => kinds.every(answeredIn(1, 2)), lagging((k) => !answeredIn(1, 2)(k)));
        pg.start();
        const restartedAt = performance.now();
        phase = 2;
        const usual = answeredIn(2, 1, (k) => k.up);
        await until("every kind got its usual answer again after the restart", () => kinds.every(usual), lagging((k) => !usual(k)));
        console.log(`pg_ctl stop -m ${mode}: every kind of request answered as usual ${Math.round(performance.now() - restartedAt)} ms after PostgreSQL accepted connections again`);
        const recovered = samples.length;
        await until("every kind was answered twice more", () => kinds.every((k) => samples.slice(recovered).filter((s) => s.kind === k.name).length >= 2));
        loading = false;
        await Promise.all(workers);

        for (const s of samples) {
          const kind = kinds.find((k) => k.name === s.kind)!;
          const where = `${s.kind} (phase ${s.from}->${s.to}) answered ${s.status}: ${s.text.slice(0, 200)}`;
          expect([kind.up, 503], where).toContain(s.status);
          if (kind.refused) expect(s.status, where).not.toBe(200);
          // Nothing of the database reaches a client: no driver code, no message, no URL, no stack.
          expect(s.text, where).not.toMatch(/postgres|ERR_|57P0|127\.0\.0\.1:|Failed to connect|Connection closed|\n\s+at /i);
          if (s.status === 503) {
            if (kind.down === HTML_503) expect(s.text, where).toContain("<title>Temporarily unavailable");
            else if (Array.isArray(kind.down)) expect(kind.down, where).toContainEqual(JSON.parse(s.text));
            else expect(JSON.parse(s.text), where).toEqual(kind.down);
          }
          // While the server was down (sent and answered), every request that needs it got its 503.
          if (s.from === 1 && s.to === 1) expect(s.status, where).toBe(typeof kind.down === "number" ? kind.down : 503);
        }
        // Once a kind was served again, it always was: the pool does not hand out dead connections.
        for (const kind of kinds) {
          const after = samples.filter((s) => s.kind === kind.name && s.from === 2);
          const firstOk = after.findIndex((s) => s.status === kind.up);
          expect(after.slice(firstOk).map((s) => s.status), kind.name).toEqual(after.slice(firstOk).map(() => kind.up));
        }
        // The refresh chain lost nothing: its last token (refused during the outage, then used) still rotates.
        expect((await fetch(`${gw.url}/api/v1/oauth/token`, formPost({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: client }))).status).toBe(200);
        // The operator is told, with the driver's code and never the URL or a query.
        const outage = logged.filter((l) => l.startsWith("db.unavailable"));
        expect(outage.length).toBeGreaterThan(0);
        expect(outage[0]).toMatch(/"code":"(ERR_POSTGRES_[A-Z_]+|57P0\d)"/);
        expect(logged.join("\n")).not.toContain(url);
      } finally {
        loading = false;
        await Promise.all(workers);
        if (!pg.running) pg.start();
      }
    });
  }
  pgTest("sign-ins refused while the database is down do not count toward the login limiter", async () => {
    const limited = await startTestGateway("", { auth: "  rate_limit:\n    max_attempts: 3\n", database: await freshPgDatabase(pg) });
    try {
      await addUser(limited, "alice", PASSWORD);
      const client = await publicClient(limited);
      pg.stop("fast");
      try {
        for (let i = 0; i < 5; i++) {
          const res = await cliLogin(limited, client, "wrong password");
          expect(res.status).toBe(503);
          expect(await res.json()).toEqual(DATABASE_UNAVAILABLE_BODY);
        }
      } finally {
        pg.start();
      }
      // Five refusals, but the limiter (3 failures) counted none: two wrong passwords are 401s, then the right one signs in.
      expect((await cliLogin(limited, client, "wrong password")).status).toBe(401);
      expect((await cliLogin(limited, client, "wrong password")).status).toBe(401);
      expect((await cliLogin(limited, client)).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });

  pgTest("a token cache filled before the outage serves nothing during it and is emptied when the change listener reconnects", async () => {
    const cached = await startTestGateway("", { database: await freshPgDatabase(pg) });
    const admin = new SQL(cached.ctx.config.database!.url!);
    try {
      const uid = await addUser(cached, "alice", PASSWORD);
      const { info, token: pat } = await cached.ctx.pats.create(uid, "cached");
      const client = await publicClient(cached);
      const { access_token: oat } = (await (await cliLogin(cached, client)).json()) as { access_token: string };
      const listener = cached.ctx.stamp as PgChanges;
      await until("the change listener is connected", () => listener.connected);
      // Both tokens are verified and cached (the first use of the PAT records its use: a write, which empties the cache).
      for (const token of [pat, pat, oat]) expect((await bearerGet(cached, token)).status).toBe(200);
      // A revocation whose notification is lost (triggers off for this transaction, as if the listener had
      // missed it): the cache still holds the PAT.
      await admin.begin(async (tx) => {
        await tx`SET LOCAL session_replication_role = replica`;
        await tx`UPDATE personal_access_tokens SET revoked = true WHERE id = ${info.id}`;
      });
      expect((await bearerGet(cached, pat)).status).toBe(200);
      // An outage during which nobody calls: once the listener is back, the stale entry is gone.
      pg.stop("fast");
      try {
        await until("the gateway noticed the listener is gone", () => !listener.connected);
      } finally {
        pg.start();
      }
      await until("the change listener reconnected", () => listener.connected);
      expect((await bearerGet(cached, pat)).status).toBe(401);
      // While the listener is down, the OAuth token cached before the outage is not accepted from the cache.
      expect((await bearerGet(cached, oat)).status).toBe(200);
      pg.stop("fast");
      try {
        await until("the gateway noticed the listener is gone", () => !listener.connected);
        const during = await bearerGet(cached, oat);
        expect(during.status).toBe(503);
        expect(await during.json()).toEqual(AUTH_503);
      } finally {
        pg.start();
      }
      await until("the change listener reconnected", () => listener.connected);
      expect((await bearerGet(cached, oat)).status).toBe(200);
    } finally {
      await admin.close();
      await cached.stop();
    }
  });
});

describe("agent gateway serve through an outage", () => {
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe"> | undefined;
  let pg: ControlledPgServer | undefined;
  afterAll(() => {
    proc?.kill(9);
    if (pg?.running) pg.stop("immediate");
  });

  pgTest("the process keeps running, reports the database unavailable, and serves again once it is back", async () => {
    ensureBinary();
    pg = startPgServer();
    const url = await freshPgDatabase(pg);
    const dir = tempDir("gw-outage-");
    const config = join(dir, "gateway-config.yaml");
    writeFileSync(config, `display_name: ${NAME}\ndata_dir: ${join(dir, "data")}\ndatabase:\n  url: ${url}\nlisten:\n  address: 127.0.0.1\n  port: 0\nauth: {}\n`);
    const admin = (args: string[]) => Bun.spawnSync([BINARY, "gateway", ...args, "--config", config], { env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" } });
    expect(admin(["principal", "create", "ada"]).exitCode).toBe(0);
    const pat = admin(["token", "create", "ada", "--label", "outage"]).stdout.toString().trim();
    proc = Bun.spawn([BINARY, "gateway", "serve", "--config", config], { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" } });
    const reader = proc.stdout.getReader();
    let out = "";
    while (!/database: .*\n/.test(out)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`agent gateway serve exited early: ${out} ${await new Response(proc.stderr).text()}`);
      out += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    const gw = /listening on (\S+)/.exec(out)![1]!;
    const health = async (token?: string) => answer(await fetch(`${gw}/api/v1/health`, { headers: token ? { Authorization: `Bearer ${token}` } : {} }));
    expect((await health(pat)).status).toBe(200);

    pg.stop("fast");
    try {
      const down = await health();
      expect(down.status).toBe(503);
      // The admin commands above migrated the database, so serve did not.
      expect(JSON.parse(down.text)).toEqual({ ...HEALTH_503, migrated_at_startup: false });
      const refused = await health(pat);
      expect(refused.status).toBe(503);
      // Background work (fleet observation, the change listeners, the session supervisor) keeps failing
      // for a while: the process must ride it out, not crash on an unhandled rejection.
      await Bun.sleep(3000);
      expect(proc.exitCode).toBeNull();
    } finally {
      pg.start();
    }
    let back: Answer | undefined;
    const polled = async () => {
      back = await health(pat);
      return back.status === 200;
    };
    for (const end = Date.now() + 30_000; !(await polled()); await Bun.sleep(20)) {
      if (Date.now() > end) throw new Error(`the gateway did not serve again after the restart: ${back?.status} ${back?.text}`);
    }
    expect(JSON.parse(back!.text)).toMatchObject({ status: "ok", authenticated: { username: "ada" } });
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    // The operator finds the outage in the log, with the driver's code.
    const log = await new Response(proc.stderr).text();
    expect(log).toMatch(/"event":"db.unavailable","code":"ERR_POSTGRES_CONNECTION_REFUSED"/);
  });
});

describe("SQLite locked past its busy timeout", () => {
  sqliteOnlyTest("writes that cannot get the lock are 503s without internals, and the gateway serves again once it is released", async () => {
    const gw = await startTestGateway();
    const other = new Database(join(gw.dir, "data", "gateway.sqlite"));
    try {
      await addUser(gw, "alice", PASSWORD);
      const client = await publicClient(gw);
      const [ccId, ccSecret] = await confidentialClient(gw);
      const clientCredentials = () => fetch(`${gw.url}/api/v1/oauth/token`, formPost({ grant_type: "client_credentials" }, { Authorization: basic(ccId, ccSecret) }));
      // Another process holds the write lock longer than the gateway waits for it (5 s by default; 50 ms here).
      gw.ctx.sqlite!.exec("PRAGMA busy_timeout = 50");
      other.exec("BEGIN EXCLUSIVE");
      const login = await cliLogin(gw, client);
      expect(login.status).toBe(503);
      expect([DATABASE_UNAVAILABLE_BODY, AUTH_503]).toContainEqual(await login.json());
      const issued = await clientCredentials();
      expect(issued.status).toBe(503);
      expect(issued.headers.get("retry-after")).toBe("1");
      expect(await issued.json()).toEqual({ error: "temporarily_unavailable", error_description: DATABASE_UNAVAILABLE_BODY.message });
      other.exec("ROLLBACK");
      expect((await cliLogin(gw, client)).status).toBe(200);
      expect((await clientCredentials()).status).toBe(200);
    } finally {
      other.close();
      await gw.stop();
    }
  });
});
