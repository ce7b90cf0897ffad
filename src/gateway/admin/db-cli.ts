// `agent gateway db export|import`: moves a gateway from its SQLite database to PostgreSQL. The export is
// a JSON file (mode 0600: it holds password and token hashes) of every table; the import writes it into a
// PostgreSQL database in one transaction (migrations applied first, a target with rows refused unless
// --replace). The PostgreSQL password never goes in the URL: --password-file or $AGENT_GATEWAY_DATABASE_PASSWORD.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CliError, EXIT, UsageError, type Io, type ParsedArgs } from "../../util/cli-command.ts";
import { writeFileAtomic } from "../../util/atomic-write.ts";
import { resolveDataDir } from "../config/load.ts";
import { DB_FILE, openGatewayDb } from "../db/open.ts";
import { displayUrl, openGatewayPg } from "../db/open-pg.ts";
import { checkExport, exportSqlite, importIntoPg, TransferError } from "../db/transfer.ts";
import { loadConfigFor } from "./admin-context.ts";
import { printJson, printTable, wantsJson } from "./format.ts";

export const PASSWORD_ENV = "AGENT_GATEWAY_DATABASE_PASSWORD";

export async function exportDb(args: ParsedArgs, io: Io): Promise<number> {
  const output = args.flags.output as string | undefined;
  if (!output) throw new UsageError("db export needs --output FILE (the export holds password and token hashes: it is written with mode 0600)");
  const config = loadConfigFor(args, io, false);
  const dataDir = resolveDataDir(config, io.env);
  if (!existsSync(join(dataDir, DB_FILE))) throw new CliError(`no gateway database at ${join(dataDir, DB_FILE)} (data_dir ${dataDir})`);
  const opened = openGatewayDb(dataDir);
  let text: string;
  let counts: Array<[string, number]>;
  try {
    const schema = (opened.sqlite.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
    const doc = exportSqlite(opened.sqlite, schema, new Date());
    text = `${JSON.stringify(doc)}\n`;
    counts = Object.entries(doc.tables).map(([key, rows]) => [key, rows.length]);
  } finally {
    opened.sqlite.close();
  }
  const target = resolve(io.cwd, output);
  writeFileAtomic(target, text, 0o600);
  if (wantsJson(args)) printJson(io, { output: target, tables: Object.fromEntries(counts) });
  else {
    printTable(io, ["TABLE", "ROWS"], counts.map(([k, n]) => [k, String(n)]), "");
    io.out(`Exported ${opened.path} to ${target}.\n`);
  }
  return EXIT.ok;
}

export async function importDb(args: ParsedArgs, io: Io): Promise<number> {
  const file = args.positionals[0]!;
  const url = args.flags["database-url"] as string | undefined;
  if (!url) throw new UsageError("db import needs --database-url postgres://user@host:5432/database");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--database-url ${JSON.stringify(displayUrl(url))} is not a URL; expected postgres://user@host:5432/database`);
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") throw new UsageError(`--database-url must be a postgres:// URL, got ${parsed.protocol}//`);
  // A password in a URL shows in process lists and shell history.
  if (parsed.password) throw new UsageError(`--database-url must not carry the password: use --password-file FILE or $${PASSWORD_ENV}`);
  const password = readPassword(args, io);
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
  if (wantsJson(args)) printJson(io, { database: opened.path, tables: written });
  else {
    printTable(io, ["TABLE", "ROWS"], Object.entries(written).map(([k, n]) => [k, String(n)]), "");
    io.out(`Imported ${file} into ${opened.path}.\n`);
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
