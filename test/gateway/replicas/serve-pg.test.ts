// `agent gateway serve` and the admin commands on PostgreSQL, as an operator runs them: one config with
// database.url and the password from database.password_env (or password_file), against a role that must
// authenticate with that password (scram-sha-256 for its database; the test server trusts everyone else).
// A wrong password, a server that refuses or never answers: exit 1 with one line naming the URL without
// the password, and the password never appears in any output.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { SQL } from "bun";
import { runCli } from "../../../src/cli/run.ts";
import { captureIo } from "../../helpers/io.ts";
import { PG_MISSING, pgServer, pgTest } from "../../helpers/postgres.ts";
import { tempDir } from "../helpers.ts";

const MAIN = join(import.meta.dir, "..", "..", "..", "src", "cli", "main.ts");
const PASSWORD = `pw-${randomBytes(12).toString("hex")}`;
const ROLE = `gw_role_${process.pid}`;
const DATABASE = `gw_pw_${process.pid}`;
let url = "";

/**
 * A role with a password and a database it owns, which pg_hba makes it reach only with that password:
 * the test server trusts loopback, so without this line any password (or none) would be accepted.
 */
async function passwordDatabase(): Promise<string> {
  const pg = pgServer();
  const admin = new SQL(pg.url("postgres"));
  try {
    await admin.unsafe(`CREATE ROLE ${ROLE} LOGIN PASSWORD '${PASSWORD}'`);
    await admin.unsafe(`CREATE DATABASE ${DATABASE} OWNER ${ROLE}`);
    const hba_file = ((await admin`SHOW hba_file`) as { hba_file: string }[])[0]!.hba_file;
    writeFileSync(hba_file, `host ${DATABASE} ${ROLE} 127.0.0.1/32 scram-sha-256\n${readFileSync(hba_file, "utf8")}`);
    await admin`SELECT pg_reload_conf()`;
  } finally {
    await admin.close();
  }
  const target = `postgres://${ROLE}@127.0.0.1:${pg.port}/${DATABASE}`;
  // The reload is a signal: wait until a wrong password is refused.
  for (;;) {
    const probe = new SQL({ url: target, password: "wrong", max: 1 });
    const refused = await probe`SELECT 1`.then(() => false, () => true);
    await probe.close();
    if (refused) return target;
    await Bun.sleep(50);
  }
}

/** The pepper every config of this file shares (one database, one pepper). */
const PEPPER = join(tempDir("pepper-"), "pepper");
writeFileSync(PEPPER, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });

function writeConfig(dir: string, database: string): string {
  const file = join(dir, "gateway-config.yaml");
  writeFileSync(file, `data_dir: ${join(dir, "data")}\nhost_name: pg-box\ndatabase:\n${database}listen:\n  address: 127.0.0.1\n  port: 0\nauth:\n  password:\n    pepper_file: ${PEPPER}\n    memory_kib: 8192\n    time_cost: 1\n`);
  return file;
}

const env = (extra: Record<string, string> = {}) => ({ ...process.env, GW_DB_PASSWORD: PASSWORD, ...extra });

async function cli(argv: string[], options: { env?: Record<string, string | undefined>; stdin?: string; cwd?: string } = {}) {
  const io = captureIo({ env: options.env ?? env(), stdin: options.stdin, cwd: options.cwd });
  const code = await runCli(argv, io);
  return { code, out: io.stdout, err: io.stderr };
}

interface Served {
  url: string;
  stdout: string;
  stop(): Promise<{ stdout: string; stderr: string }>;
}

/** Runs `agent gateway serve` until its start-up lines are out, or until it exits (then throws with its output). */
async function serve(config: string, serveEnv: Record<string, string | undefined>): Promise<Served> {
  const proc = Bun.spawn([process.execPath, MAIN, "gateway", "serve", "--config", config], { env: serveEnv, stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  let stdout = "";
  while (!/^database: /m.test(stdout)) {
    const { value, done } = await reader.read();
    if (done) throw Object.assign(new Error("exited"), { code: await proc.exited, stdout, stderr: await new Response(proc.stderr).text() });
    stdout += new TextDecoder().decode(value);
  }
  return {
    url: /listening on (\S+)/.exec(stdout)![1]!,
    stdout,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        stdout += new TextDecoder().decode(value);
      }
      return { stdout, stderr: await new Response(proc.stderr).text() };
    },
  };
}

/** `serve` that must fail: its exit code and output. */
async function serveFails(config: string, serveEnv: Record<string, string | undefined>): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([process.execPath, MAIN, "gateway", "serve", "--config", config], { env: serveEnv, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  if (!PG_MISSING) url = await passwordDatabase();
});

let blackhole: { stop(closeActive?: boolean): void } | undefined;
afterAll(() => blackhole?.stop(true));

describe("serve and the admin commands on PostgreSQL", () => {
  pgTest("serve with database.password_env; principal, token and audit commands on the same config; the password never shows", async () => {
    const dir = tempDir();
    const config = writeConfig(dir, `  url: ${url}\n  password_env: GW_DB_PASSWORD\n`);
    const served = await serve(config, env());
    const outputs: string[] = [];
    try {
      expect(served.stdout).toContain(`database: ${url} (PostgreSQL `);
      expect(served.stdout).toContain("(migrated at startup)");
      // Admin commands write the same database while the server runs.
      const created = await cli(["gateway", "principal", "create", "ada", "--config", config]);
      expect([created.code, created.err]).toEqual([0, ""]);
      const pw = await cli(["gateway", "principal", "set-password", "ada", "--password-stdin", "--config", config], { stdin: "correct horse battery\n" });
      expect(pw.code).toBe(0);
      const token = await cli(["gateway", "token", "create", "ada", "--label", "ci", "--config", config]);
      expect(token.code).toBe(0);
      const listed = await cli(["gateway", "principal", "list", "--json", "--config", config]);
      expect(JSON.parse(listed.out).map((p: { username: string }) => p.username)).toEqual(["ada"]);
      const audit = await cli(["gateway", "audit", "list", "--json", "--config", config]);
      expect(JSON.parse(audit.out).map((e: { action: string }) => e.action)).toContain("principal.create");
      outputs.push(...[created, pw, token, listed, audit].flatMap((r) => [r.out, r.err]));
      // The running server accepts the token the CLI made.
      const res = await fetch(`${served.url}/api/v1/projects`, { headers: { Authorization: `Bearer ${token.out.trim()}` } });
      expect(res.status).toBe(200);
      const version = (await (await fetch(`${served.url}/api/v1/version`)).json()) as { database: { engine: string } };
      expect(version.database.engine).toBe("postgresql");
    } finally {
      const { stdout, stderr } = await served.stop();
      outputs.push(stdout, stderr);
    }
    // The start-up log line names the database by its URL and this replica by its host_name.
    expect(outputs.at(-1)).toContain(`"event":"gateway.started"`);
    expect(outputs.at(-1)).toContain(`"database":"${url}","host_name":"pg-box"`);
    for (const text of outputs) expect(text).not.toContain(PASSWORD);
  }, 60_000);

  pgTest("database.password_file works; a wrong password is exit 1 naming the URL without the password", async () => {
    const dir = tempDir();
    const file = join(dir, "db-password");
    writeFileSync(file, `${PASSWORD}\n`, { mode: 0o600 });
    const fromFile = await cli(["gateway", "principal", "list", "--json", "--config", writeConfig(dir, `  url: ${url}\n  password_file: ${file}\n`)], { env: { ...process.env } });
    expect([fromFile.code, fromFile.err]).toEqual([0, ""]);

    const wrong = `${PASSWORD}x`;
    const config = writeConfig(tempDir(), `  url: ${url}\n  password_env: GW_DB_PASSWORD\n`);
    const refused = await serveFails(config, env({ GW_DB_PASSWORD: wrong }));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`agent: cannot start the gateway: cannot connect to the gateway database at ${url}: password authentication failed for user "${ROLE}"\n`);
    const admin = await cli(["gateway", "token", "list", "ada", "--config", config], { env: env({ GW_DB_PASSWORD: wrong }) });
    expect(admin.code).toBe(1);
    expect(admin.err).toBe(`agent: cannot open the gateway database: cannot connect to the gateway database at ${url}: password authentication failed for user "${ROLE}"\n`);
    for (const text of [refused.stdout, refused.stderr, admin.out, admin.err]) {
      expect(text).not.toContain(wrong);
      expect(text).not.toContain(PASSWORD);
    }
  }, 60_000);

  pgTest("a variable that password_env names but is unset: exit 1 naming the field and the variable", async () => {
    const dir = tempDir();
    const config = writeConfig(dir, `  url: ${url}\n  password_env: GW_DB_PASSWORD_UNSET\n`);
    const result = await serveFails(config, { ...process.env, GW_DB_PASSWORD_UNSET: undefined });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`agent: cannot start the gateway: ${config}: database.password_env names GW_DB_PASSWORD_UNSET, which is not set\n`);
  }, 60_000);

  test("a server that refuses, or accepts and never answers: exit 1 with one line naming the URL, password masked", async () => {
    // Accepts TCP connections and never says a word (a wedged server or a half-open firewall).
    const silentServer = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {}, open() {} } });
    blackhole = silentServer;
    const silent = `postgres://agent@127.0.0.1:${silentServer.port}/gw`;
    const closedPort = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const refusing = `postgres://agent@127.0.0.1:${closedPort.port}/gw`;
    closedPort.stop(true);
    for (const [target, reason] of [
      [silent, "Connection timeout after 5s (sent startup message, but never received response)"],
      [refusing, "Failed to connect"],
    ] as const) {
      const config = writeConfig(tempDir(), `  url: ${target}\n  password_env: GW_DB_PASSWORD\n`);
      const result = await serveFails(config, env());
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`agent: cannot start the gateway: cannot connect to the gateway database at ${target}: ${reason}\n`);
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    }
  }, 60_000);
});
