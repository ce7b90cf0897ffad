// `agent gateway db export|import` moves a SQLite gateway to PostgreSQL: every row of every table arrives
// with its types (booleans, JSON, times, identity ids), a token made on SQLite is found by its hash on
// PostgreSQL, the import is one transaction that refuses a target holding rows unless --replace, and the
// export file is private. Real gateway, real CLI (in process), real PostgreSQL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { eq } from "drizzle-orm";
import { runCli } from "../../../src/cli/run.ts";
import { openGatewayPg } from "../../../src/gateway/db/open-pg.ts";
import { tableOrder } from "../../../src/gateway/db/transfer.ts";
import { drizzle } from "drizzle-orm/bun-sqlite";
import * as sqliteSchema from "../../../src/gateway/db/schema.ts";
import { sha256Hex } from "../../../src/util/ids.ts";
import { OAuthClientStore } from "../../../src/gateway/auth/oauth-clients.ts";
import { captureIo } from "../../helpers/io.ts";
import { freshPgDatabase, pgTest } from "../../helpers/postgres.ts";
import { addUser, startTestGateway, type TestGateway } from "../helpers.ts";

let gw: TestGateway;
let config: string;
let token: string;

const cli = async (argv: string[], env: Record<string, string | undefined> = {}) => {
  const io = captureIo({ cwd: gw.dir, env: { ...process.env, ...env } });
  const code = await runCli(["gateway", "db", ...argv], io);
  return { code, out: io.stdout, err: io.stderr };
};

beforeAll(async () => {
  // The export's source is a SQLite gateway in both runs of the suite (AGENT_TEST_DB).
  gw = await startTestGateway("", { database: null });
  config = join(gw.dir, "gateway-config.yaml");
  const ada = await addUser(gw, "ada", "correct horse battery");
  token = (await gw.ctx.pats.create(ada, "laptop")).token;
  const revoked = await gw.ctx.pats.create(ada, "old");
  await gw.ctx.pats.revoke(revoked.info.id);
  await new OAuthClientStore(gw.ctx.db, gw.clock).register("ci runner", "confidential");
  const now = gw.clock.now();
  gw.ctx.sqlite!.run("INSERT INTO configurations (name, format, has_pre_run_script, created_at, updated_at) VALUES ('dev', 'yaml', 1, ?, ?)", [now, now]);
  gw.ctx.sqlite!.run("INSERT INTO projects (id, path, config_name, registered_at, updated_at) VALUES ('0a1b2c3d', '/srv/p', 'dev', ?, ?)", [now, now]);
  gw.ctx.sqlite!.run("INSERT INTO sessions (id, project_id, launch_mode, state, created_at, updated_at) VALUES ('ses_x', '0a1b2c3d', 'project_direct', 'stopped', ?, ?)", [now, now]);
  gw.ctx.sqlite!.run("INSERT INTO session_transitions (session_id, from_state, to_state, reason, at) VALUES ('ses_x', NULL, 'starting', 'create', ?), ('ses_x', 'starting', 'stopped', 'stop', ?)", [now, now]);
  gw.ctx.sqlite!.run("INSERT INTO service_credentials (generation_id, session_id, state, verifier, capabilities, created_at) VALUES ('gen1', 'ses_x', 'invalidated', 'v', '[{\"name\":\"git\"}]', ?)", [now]);
  gw.ctx.sqlite!.run("INSERT INTO rate_limit_state (limiter, key, attempts, locked_until, updated_at) VALUES ('login', '192.0.2.1', '[1,2]', ?, ?)", [now + 60_000, now]);
  await gw.ctx.audit.record({ action: "test.event", outcome: "success", detail: "one" });
  await gw.ctx.audit.record({ action: "test.event", outcome: "failure", detail: "two" });
});

afterAll(async () => {
  await gw.stop();
});

/** Every table's rows as drizzle reads them from the SQLite source, keyed like the export. */
function sqliteRows(): Record<string, unknown[]> {
  const db = drizzle({ client: gw.ctx.sqlite!, schema: sqliteSchema });
  return Object.fromEntries(tableOrder().map((key) => [key, db.select().from(sqliteSchema[key] as any).all()]));
}

describe("agent gateway db export | import", () => {
  pgTest("everything arrives on PostgreSQL with its types; a SQLite token is found by its hash there; identity ids continue", async () => {
    const file = join(gw.dir, "export.json");
    const exported = await cli(["export", "--output", file, "--config", config]);
    expect(exported.err).toBe("");
    expect(exported.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(exported.out).toContain(`to ${file}.`);

    const url = await freshPgDatabase();
    const imported = await cli(["import", file, "--database-url", url, "--json"]);
    expect(imported.err).toBe("");
    expect(imported.code).toBe(0);
    const source = sqliteRows();
    const summary = JSON.parse(imported.out);
    expect(summary.tables.audit_events).toBe(source.auditEvents!.length);
    expect(summary.tables.principals).toBe(2);

    const pg = await openGatewayPg(url);
    try {
      // Every row moves except the fleet journal and its epoch: the target starts a new epoch (clients'
      // cursors into the old journal are answered reset_required, never resumed into other events).
      expect((source.gatewaySettings as { key: string }[]).map((r) => r.key)).toContain("fleet_epoch");
      const moved = (key: string) => (key === "fleetEvents" ? [] : key === "gatewaySettings" ? source[key]!.filter((r: any) => r.key !== "fleet_epoch") : source[key]!);
      for (const key of tableOrder()) {
        const rows = await pg.db.select().from(pg.db.t[key] as any);
        const sortKey = (r: any) => JSON.stringify(r);
        expect({ [key]: rows.map(sortKey).sort() }).toEqual({ [key]: moved(key).map(sortKey).sort() });
      }
      const { personalAccessTokens } = pg.db.t;
      const [found] = await pg.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.tokenHash, sha256Hex(token)));
      expect(found).toMatchObject({ label: "laptop", revoked: false });
      // A new audit event gets an id after the imported ones.
      await pg.db.insert(pg.db.t.auditEvents).values({ at: 1, action: "after", outcome: "success" });
      const ids = (await pg.db.select({ id: pg.db.t.auditEvents.id }).from(pg.db.t.auditEvents)).map((r) => r.id);
      expect(Math.max(...ids)).toBe(Math.max(...(source.auditEvents as { id: number }[]).map((r) => r.id)) + 1);
    } finally {
      await pg.db.close();
    }

    // Again into the same database: refused, nothing changed; with --replace it holds the export exactly.
    const again = await cli(["import", file, "--database-url", url]);
    expect(again.code).toBe(1);
    expect(again.err).toStartWith("agent: the target database already holds gateway data: ");
    expect(again.err).toContain("principals (2)");
    expect(again.err).toContain("pass --replace to delete it first");
    const sql = new SQL(url);
    expect(((await sql`SELECT count(*)::int AS n FROM audit_events`) as { n: number }[])[0]!.n).toBe(source.auditEvents!.length + 1);
    const replaced = await cli(["import", file, "--database-url", url, "--replace"]);
    expect(replaced.code).toBe(0);
    expect(((await sql`SELECT count(*)::int AS n FROM audit_events`) as { n: number }[])[0]!.n).toBe(source.auditEvents!.length);
    await sql.close();
  }, 120_000);

  pgTest("a failing row rolls the whole import back", async () => {
    const file = join(gw.dir, "broken.json");
    const good = join(gw.dir, "good.json");
    expect((await cli(["export", "--output", good, "--config", config])).code).toBe(0);
    const doc = JSON.parse(await Bun.file(good).text());
    // A session pointing at a project that does not exist: the foreign key refuses it, after the principals went in.
    doc.tables.sessions.push({ ...doc.tables.sessions[0], id: "ses_orphan", projectId: "ffffffff" });
    writeFileSync(file, JSON.stringify(doc));
    const url = await freshPgDatabase();
    const result = await cli(["import", file, "--database-url", url]);
    expect(result.code).toBe(1);
    expect(result.err).toStartWith("agent: the import into ");
    expect(result.err).toContain("failed and changed nothing");
    const sql = new SQL(url);
    expect(((await sql`SELECT count(*)::int AS n FROM principals`) as { n: number }[])[0]!.n).toBe(0);
    await sql.close();
  }, 120_000);

  test("bad input: a password in the URL, a file that is not an export, a missing --output", async () => {
    const withPassword = await cli(["import", "x.json", "--database-url", "postgres://agent:hunter2@127.0.0.1:5432/gw"]);
    expect(withPassword.code).toBe(2);
    expect(withPassword.err).toContain("--database-url must not carry the password: use --password-file FILE or $AGENT_GATEWAY_DATABASE_PASSWORD");
    expect(withPassword.err).not.toContain("hunter2");
    const other = join(gw.dir, "other.json");
    writeFileSync(other, '{"hello": 1}');
    const notExport = await cli(["import", other, "--database-url", "postgres://agent@127.0.0.1:1/gw"]);
    expect(notExport.code).toBe(1);
    expect(notExport.err).toBe(`agent: ${other} is not a gateway export (no "format": "agent-gateway-export"); write one with \`agent gateway db export\`\n`);
    const noOutput = await cli(["export", "--config", config]);
    expect(noOutput.code).toBe(2);
    expect(noOutput.err).toContain("db export needs --output FILE");
  });
});
