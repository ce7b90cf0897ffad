// What `agent gateway serve` leaves on disk and says at start, as an operator sees it: the gateway database
// and its -wal/-shm files are 0600 even under a umask of 022 (an older 0644 database is corrected), a
// session store likewise, and a configured TLS key readable by group or others draws a loud warning naming
// the file and the fix.
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { initSessionDir } from "../../src/daemon/store/index.ts";
import { STORE_FILE } from "../../src/daemon/store/open.ts";
import { sqliteOnlyTest, tempDir } from "./helpers.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

interface Served {
  url: string;
  stdout: string;
  stderr: () => Promise<string>;
  stop: () => Promise<void>;
}
let running: Served | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

/** Runs `agent gateway serve` under umask 022 until it has printed its startup lines. */
async function serve(config: string): Promise<Served> {
  const proc = Bun.spawn(["/bin/sh", "-c", `umask 022; exec "$0" "$@"`, process.execPath, MAIN, "gateway", "serve", "--config", config], { env: process.env, stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  let stdout = "";
  while (!/^database: /m.test(stdout)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`gateway exited early: ${await new Response(proc.stderr).text()}`);
    stdout += new TextDecoder().decode(value);
  }
  const stop = async () => {
    proc.kill("SIGTERM");
    await proc.exited;
  };
  const stderr = async () => {
    await stop();
    return new Response(proc.stderr).text();
  };
  return { url: /listening on (\S+)/.exec(stdout)![1]!, stdout, stderr, stop };
}

function gatewayConfig(dir: string, extra = ""): string {
  const file = join(dir, "gateway-config.yaml");
  writeFileSync(file, `data_dir: ${join(dir, "data")}\nlisten:\n  address: 127.0.0.1\n  port: 0\n${extra}auth:\n  password:\n    memory_kib: 8192\n    time_cost: 1\n`);
  return file;
}

function keyPair(dir: string): { cert: string; key: string } {
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  const r = Bun.spawnSync(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert, "-subj", "/CN=gw-test", "-days", "2"]);
  if (r.exitCode !== 0) throw new Error(r.stderr.toString());
  return { cert, key };
}

describe("database files are private", () => {
  // PostgreSQL's files belong to its server; these are the SQLite file's modes.
  sqliteOnlyTest("serve under umask 022 creates gateway.sqlite, -wal and -shm with mode 600 (SQLite only: the database file)", async () => {
    const dir = tempDir();
    running = await serve(gatewayConfig(dir));
    expect((await fetch(`${running.url}/api/v1/health`)).status).toBe(200);
    const db = join(dir, "data", "gateway.sqlite");
    for (const file of [db, `${db}-wal`, `${db}-shm`]) {
      expect(existsSync(file)).toBe(true);
      expect([file, mode(file)]).toEqual([file, "600"]);
    }
  }, 30_000);

  sqliteOnlyTest("a database an older build left 0644 (with its -wal) is made 600 when the gateway opens it (SQLite only: the database file)", async () => {
    const dir = tempDir();
    const db = join(dir, "data", "gateway.sqlite");
    running = await serve(gatewayConfig(dir));
    await running.stop();
    running = undefined;
    // Leave a -wal behind as a crashed gateway would, then loosen the modes.
    const held = new Database(db);
    held.exec("PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS t (x); INSERT INTO t VALUES (1)");
    for (const file of [db, `${db}-wal`, `${db}-shm`]) chmodSync(file, 0o644);
    running = await serve(gatewayConfig(dir));
    held.close();
    for (const file of [db, `${db}-wal`, `${db}-shm`]) if (existsSync(file)) expect([file, mode(file)]).toEqual([file, "600"]);
    expect(mode(db)).toBe("600");
  }, 30_000);

  test("a session store (the daemon's and the gateway's sessions) is 600 with its -wal and -shm", () => {
    const dir = join(tempDir(), "ses_x");
    const old = process.umask(0o022);
    try {
      const store = initSessionDir(dir, "ses_x", { project: dir });
      const files = ["", "-wal", "-shm"].map((suffix) => join(dir, STORE_FILE) + suffix);
      for (const file of files) expect([file, mode(file)]).toEqual([file, "600"]);
      store.close();
    } finally {
      process.umask(old);
    }
  });
});

describe("TLS key file readable by others", () => {
  test("serve warns loudly at start, naming the file, its mode and the fix", async () => {
    const dir = tempDir();
    const { cert, key } = keyPair(dir);
    chmodSync(key, 0o644);
    running = await serve(gatewayConfig(dir, `tls:\n  cert_file: ${cert}\n  key_file: ${key}\n`));
    const err = await running.stderr();
    expect(err).toContain(`*** WARNING: the TLS key file ${key} has mode 644: every account on this machine can read the gateway's private key`);
    expect(err).toContain(`chmod 600 ${key}`);
  }, 30_000);

  test("a group-readable key is named as such; a 600 key draws no warning", async () => {
    const dir = tempDir();
    const { cert, key } = keyPair(dir);
    chmodSync(key, 0o640);
    running = await serve(gatewayConfig(dir, `tls:\n  cert_file: ${cert}\n  key_file: ${key}\n`));
    expect(await running.stderr()).toContain(`the TLS key file ${key} has mode 640: every member of its group can read`);
    chmodSync(key, 0o600);
    running = await serve(gatewayConfig(dir, `tls:\n  cert_file: ${cert}\n  key_file: ${key}\n`));
    expect(await running.stderr()).not.toContain("WARNING");
  }, 30_000);
});
