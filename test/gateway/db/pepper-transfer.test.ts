// Moving a SQLite gateway to PostgreSQL keeps its pepper requirement (the pepper is never in the export or
// the database, only its fingerprint): the export and the import say which file the replicas need, a
// replica without it is refused naming `<old data dir>/pepper` on the old host, and with a copy it reads
// the imported passwords. `db adopt-pepper` is the way out for a pepper lost for good. All through the CLI.
import { expect } from "bun:test";
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { SQL } from "bun";
import { runCli } from "../../../src/cli/run.ts";
import { createGatewayContext } from "../../../src/gateway/context.ts";
import { loadGatewayConfig } from "../../../src/gateway/config/load.ts";
import { displayUrl, openGatewayPg } from "../../../src/gateway/db/open-pg.ts";
import { resolveTls, TLS_SETTING } from "../../../src/gateway/net/tls.ts";
import { parseGatewayConfig } from "../../../src/gateway/config/load.ts";
import { captureIo } from "../../helpers/io.ts";
import { freshPgDatabase, pgTest } from "../../helpers/postgres.ts";
import { tempDir } from "../helpers.ts";

const HASHING = "    memory_kib: 8192\n    time_cost: 1\n";

function config(dir: string, lines: string, pepperFile?: string): string {
  const file = join(dir, "gateway-config.yaml");
  writeFileSync(file, `data_dir: ${join(dir, "data")}\n${lines}auth:\n  password:\n${HASHING}${pepperFile ? `    pepper_file: ${pepperFile}\n` : ""}`);
  return file;
}

async function cli(argv: string[], stdin?: string) {
  const io = captureIo({ stdin });
  const code = await runCli(["gateway", ...argv], io);
  return { code, out: io.stdout, err: io.stderr };
}

async function settingKeys(url: string): Promise<string[]> {
  const sql = new SQL(url);
  try {
    return ((await sql`SELECT key FROM gateway_settings ORDER BY key`) as { key: string }[]).map((r) => r.key);
  } finally {
    await sql.close();
  }
}

pgTest("export -> import: the replicas are told, and made, to use the SQLite host's pepper; adopt-pepper replaces a lost one", async () => {
  const old = tempDir();
  const oldConfig = config(old, "host_name: old-box\n");
  expect((await cli(["principal", "create", "ada", "--config", oldConfig])).code).toBe(0);
  expect((await cli(["principal", "set-password", "ada", "--password-stdin", "--config", oldConfig], "correct horse battery\n")).code).toBe(0);
  const oldPepper = join(old, "data", "pepper");

  const exportFile = join(old, "export.json");
  const exported = await cli(["db", "export", "--output", exportFile, "--config", oldConfig]);
  expect(exported.code).toBe(0);
  const note = `The export does not hold the pepper: every gateway serving the imported database needs ${oldPepper} from old-box (copy it, mode 0600, and name it in auth.password.pepper_file).`;
  expect(exported.out).toContain(note);
  expect(await Bun.file(exportFile).text()).not.toContain((await Bun.file(oldPepper).text()).trim());

  // The import's target comes from the config (database.url), no --database-url.
  const url = await freshPgDatabase();
  const replica = tempDir();
  const replicaConfig = config(replica, `host_name: new-1\ndatabase:\n  url: ${url}\n`);
  const imported = await cli(["db", "import", exportFile, "--config", replicaConfig]);
  expect([imported.code, imported.err]).toEqual([0, ""]);
  expect(imported.out).toContain(`Imported ${exportFile} into ${displayUrl(url)}.`);
  expect(imported.out).toContain(note);

  // A replica with a data dir of its own and no pepper_file: refused, naming the old host's file.
  const refused = await cli(["principal", "list", "--config", replicaConfig]);
  expect(refused.code).toBe(1);
  expect(refused.err).toBe(
    `agent: this host has no pepper (${join(replica, "data", "pepper")} does not exist), and the gateway database ${displayUrl(url)} was set up with one (${oldPepper} on host old-box). ` +
      "Every gateway serving one database needs the same pepper file (it keys the stored passwords and daemon credentials, and is never stored in the database): copy that file to this host, mode 0600, and name it in auth.password.pepper_file.\n",
  );

  // With a copy of the old host's pepper it serves, and the SQLite password verifies on PostgreSQL.
  const copied = join(replica, "pepper");
  copyFileSync(oldPepper, copied);
  const fixedConfig = config(replica, `host_name: new-1\ndatabase:\n  url: ${url}\n`, copied);
  const ctx = await createGatewayContext({ config: loadGatewayConfig(fixedConfig), env: process.env });
  try {
    const ada = (await ctx.principals.find("ada"))!;
    expect(await ctx.hasher.verify("correct horse battery", await ctx.principals.passwordHash(ada.id))).toBe(true);
    // A replica on 0.0.0.0 stores the shared TLS identity (sealed under this pepper).
    await resolveTls(parseGatewayConfig("listen: {address: 0.0.0.0}\nauth: {}\n", fixedConfig), join(replica, "data"), new Date(), "new-1", { db: ctx.db, pepper: ctx.pepper });
  } finally {
    await ctx.db.close();
  }
  expect(await settingKeys(url)).toEqual(["pepper_fingerprint", TLS_SETTING]);

  // The pepper is lost for good: another one is adopted, only with --yes.
  const other = tempDir();
  const newPepper = join(other, "pepper");
  writeFileSync(newPepper, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  const newConfig = config(other, `host_name: new-2\ndatabase:\n  url: ${url}\n`, newPepper);
  const unconfirmed = await cli(["db", "adopt-pepper", "--config", newConfig]);
  expect(unconfirmed.code).toBe(2);
  expect(unconfirmed.err).toContain("pass --yes to confirm");
  expect((await cli(["principal", "list", "--config", newConfig])).code).toBe(1);
  const adopted = await cli(["db", "adopt-pepper", "--yes", "--config", newConfig]);
  expect([adopted.code, adopted.err]).toEqual([0, ""]);
  expect(adopted.out).toContain(`The gateway database ${displayUrl(url)} now accepts the pepper ${newPepper} (it was set up with ${oldPepper} on host old-box).`);
  expect(adopted.out).toContain("The replicas' shared TLS identity was sealed with the old pepper and is removed");
  expect(await settingKeys(url)).toEqual(["pepper_fingerprint"]);
  expect((await cli(["principal", "list", "--config", newConfig])).code).toBe(0);
  // Now the old pepper is the one refused; the audit log has the change.
  expect((await cli(["principal", "list", "--config", fixedConfig])).err).toStartWith(`agent: this host's pepper (${copied}) differs from the one the gateway database ${displayUrl(url)} was set up with (${newPepper} on host new-2).`);
  const opened = await openGatewayPg(url);
  try {
    const actions = (await opened.db.select().from(opened.db.t.auditEvents)).map((e) => e.action);
    expect(actions).toContain("pepper.adopt");
  } finally {
    await opened.db.close();
  }
}, 120_000);
