// `agent gateway db export|import`: moves a gateway from its SQLite database to PostgreSQL. The export is
// a JSON file (mode 0600: it holds password and token hashes) of every table; the import writes it into a
// PostgreSQL database in one transaction (migrations applied first, a target with rows refused unless
// --replace). The PostgreSQL password never goes in the URL: --password-file, $AGENT_GATEWAY_DATABASE_PASSWORD
// or the config's database.password_env / password_file. The pepper is not in the export: the database
// carries its fingerprint, and the import says which file every replica needs.
// `agent gateway db adopt-pepper`: the way out when the pepper a database was set up with is lost.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CliError, EXIT, UsageError, type Io, type ParsedArgs } from "../../util/cli-command.ts";
import { writeFileAtomic } from "../../util/atomic-write.ts";
import { GatewayConfigError, resolveDataDir } from "../config/load.ts";
import { databasePassword } from "../config/database-password.ts";
import { DB_FILE, openGatewayDb } from "../db/open.ts";
import { displayUrl, openGatewayPg } from "../db/open-pg.ts";
import { openConfiguredDb } from "../db/open-configured.ts";
import { deleteSetting, getSetting } from "../db/settings.ts";
import { checkExport, exportSqlite, importIntoPg, TransferError } from "../db/transfer.ts";
import { adoptPepper, establishPepper, loadPepper, PEPPER_SETTING, PepperError, pepperPath, type PepperRecord } from "../auth/pepper.ts";
import { TLS_SETTING } from "../net/tls.ts";
import { AuditLog } from "../audit/log.ts";
import { systemClock } from "../../util/clock.ts";
import { cliActor, loadConfigFor } from "./admin-context.ts";
import { printJson, printTable, wantsJson } from "./format.ts";

export const PASSWORD_ENV = "AGENT_GATEWAY_DATABASE_PASSWORD";

export async function exportDb(args: ParsedArgs, io: Io): Promise<number> {
  const output = args.flags.output as string | undefined;
  if (!output) throw new UsageError("db export needs --output FILE (the export holds password and token hashes: it is written with mode 0600)");
  const config = loadConfigFor(args, io, false);
  const dataDir = resolveDataDir(config, io.env);
  if (!existsSync(join(dataDir, DB_FILE))) {
    // The export reads a SQLite gateway: run it with the old host's config, not the replicas'.
    const hint = config.database.url ? `; db export reads the SQLite database of a gateway without database.url (this config names ${displayUrl(config.database.url)})` : "";
    throw new CliError(`no gateway database at ${join(dataDir, DB_FILE)} (data_dir ${dataDir})${hint}`);
  }
  const opened = openGatewayDb(dataDir);
  let text: string;
  let counts: Array<[string, number]>;
  let pepper: PepperRecord;
  try {
    // The export carries the pepper's fingerprint (recorded now if this database has none yet), so the
    // imported database refuses a replica with another pepper and names the file to copy.
    try {
      await establishPepper(opened.db, { dataDir, pepperFile: config.auth.password.pepper_file, host: config.host_name, database: opened.path, now: new Date() });
    } catch (error) {
      if (error instanceof PepperError) throw new CliError(error.message);
      throw error;
    }
    const schema = (opened.sqlite.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
    const doc = exportSqlite(opened.sqlite, schema, new Date());
    text = `${JSON.stringify(doc)}\n`;
    counts = Object.entries(doc.tables).map(([key, rows]) => [key, rows.length]);
    pepper = recordIn(doc.tables)!;
  } finally {
    opened.sqlite.close();
  }
  const target = resolve(io.cwd, output);
  writeFileAtomic(target, text, 0o600);
  if (wantsJson(args)) printJson(io, { output: target, tables: Object.fromEntries(counts), pepper_file: pepper.file });
  else {
    printTable(io, ["TABLE", "ROWS"], counts.map(([k, n]) => [k, String(n)]), "");
    io.out(`Exported ${opened.path} to ${target}.\n`);
    io.out(`${pepperNote(pepper)}\n`);
  }
  return EXIT.ok;
}

/** The pepper record an export carries, if any. */
function recordIn(tables: Record<string, Record<string, unknown>[]>): PepperRecord | undefined {
  const row = (tables.gatewaySettings ?? []).find((r) => r.key === PEPPER_SETTING);
  try {
    return row ? (JSON.parse(String(row.value)) as PepperRecord) : undefined;
  } catch {
    return undefined;
  }
}

const pepperNote = (record: PepperRecord | undefined) =>
  record
    ? `The export does not hold the pepper: every gateway serving the imported database needs ${record.file} from ${record.host} (copy it, mode 0600, and name it in auth.password.pepper_file).`
    : "The export does not hold the pepper: every gateway serving the imported database needs the pepper file of the gateway it came from (<data_dir>/pepper there, or its auth.password.pepper_file).";

export async function importDb(args: ParsedArgs, io: Io): Promise<number> {
  const file = args.positionals[0]!;
  const config = args.flags["database-url"] === undefined ? loadConfigFor(args, io, false) : undefined;
  const url = (args.flags["database-url"] as string | undefined) ?? config?.database.url;
  if (!url) throw new UsageError("db import needs --database-url postgres://user@host:5432/database, or database.url in the gateway config");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--database-url ${JSON.stringify(displayUrl(url))} is not a URL; expected postgres://user@host:5432/database`);
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") throw new UsageError(`--database-url must be a postgres:// URL, got ${parsed.protocol}//`);
  // A password in a URL shows in process lists and shell history.
  if (parsed.password) throw new UsageError(`--database-url must not carry the password: use --password-file FILE or $${PASSWORD_ENV}`);
  const password = readPassword(args, io) ?? (config ? configPassword(config, io) : undefined);
  let text: string;
  try {
    text = readFileSync(resolve(io.cwd, file), "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let doc;
  try {
    doc = checkExport(JSON.parse(text), file);
  } catch (error) {
    if (error instanceof SyntaxError) throw new CliError(`${file} is not JSON: ${error.message}`);
    if (error instanceof TransferError) throw new CliError(error.message);
    throw error;
  }
  const opened = await openGatewayPg(url, { password, max: 1 }).catch((error: Error) => {
    throw new CliError(error.message);
  });
  let written: Record<string, number>;
  try {
    written = await importIntoPg(opened.db, doc, { replace: args.flags.replace === true });
  } catch (error) {
    if (error instanceof TransferError) throw new CliError(error.message);
    throw new CliError(`the import into ${opened.path} failed and changed nothing: ${(error as Error).message}`);
  } finally {
    await opened.db.close();
  }
  const pepper = recordIn(doc.tables);
  if (wantsJson(args)) printJson(io, { database: opened.path, tables: written, pepper_file: pepper?.file ?? null, pepper_host: pepper?.host ?? null });
  else {
    printTable(io, ["TABLE", "ROWS"], Object.entries(written).map(([k, n]) => [k, String(n)]), "");
    io.out(`Imported ${file} into ${opened.path}.\n`);
    io.out(`${pepperNote(pepper)}\n`);
  }
  return EXIT.ok;
}

function configPassword(config: Parameters<typeof databasePassword>[0], io: Io): string | undefined {
  try {
    return databasePassword(config, io.env);
  } catch (error) {
    if (error instanceof GatewayConfigError) throw new CliError(error.message);
    throw error;
  }
}

export async function adoptPepperCmd(args: ParsedArgs, io: Io): Promise<number> {
  if (args.flags.yes !== true) {
    throw new UsageError(
      "db adopt-pepper makes the database accept this host's pepper in place of the one it was set up with: every stored password and running session's daemon credential stops working, and a TLS identity the replicas share is replaced. Use it only when that pepper is lost for good; pass --yes to confirm",
    );
  }
  const config = loadConfigFor(args, io, false);
  const dataDir = resolveDataDir(config, io.env);
  const pepperFile = config.auth.password.pepper_file;
  let opened;
  try {
    opened = await openConfiguredDb(config, io.env, dataDir);
  } catch (error) {
    throw new CliError(`cannot open the gateway database: ${(error as Error).message}`);
  }
  const now = new Date();
  try {
    let pepper: Uint8Array;
    try {
      pepper = loadPepper(dataDir, pepperFile);
    } catch (error) {
      if (error instanceof PepperError) throw new CliError(error.message);
      throw error;
    }
    const site = { dataDir, pepperFile, host: config.host_name, database: opened.path, now };
    const { before, hadTls } = await opened.db.tx(async (tx) => {
      const hadTls = (await getSetting(tx, TLS_SETTING)) !== undefined;
      // The shared key is sealed under the old pepper: it cannot be opened any more.
      await deleteSetting(tx, TLS_SETTING);
      return { before: await adoptPepper(tx, pepper, site), hadTls };
    });
    await new AuditLog(opened.db, systemClock).record({ action: "pepper.adopt", outcome: "success", detail: `${cliActor()}; host ${config.host_name}, ${pepperPath(dataDir, pepperFile)}` });
    const file = pepperPath(dataDir, pepperFile);
    if (wantsJson(args)) printJson(io, { database: opened.path, pepper_file: file, replaced: before ?? null, tls_identity_removed: hadTls });
    else {
      io.out(`The gateway database ${opened.path} now accepts the pepper ${file}${before ? ` (it was set up with ${before.file} on host ${before.host})` : ""}.\n`);
      io.out("Passwords and daemon credentials stored under the old pepper no longer verify: set passwords again with `agent gateway principal set-password`, and restart running sessions.\n");
      if (hadTls) io.out("The replicas' shared TLS identity was sealed with the old pepper and is removed: the next replica to start stores a new one, and clients must pin its new fingerprint.\n");
      io.out(`Copy ${file} to every replica.\n`);
    }
  } finally {
    await opened.db.close();
  }
  return EXIT.ok;
}

function readPassword(args: ParsedArgs, io: Io): string | undefined {
  const file = args.flags["password-file"] as string | undefined;
  if (file !== undefined) {
    try {
      return readFileSync(resolve(io.cwd, file), "utf8").replace(/\r?\n$/, "");
    } catch (error) {
      throw new CliError(`cannot read the password file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  return io.env[PASSWORD_ENV] || undefined;
}
