// Moving a gateway from SQLite to PostgreSQL (`agent gateway db export|import`): every table's rows as
// drizzle reads them (booleans, JSON and times as JS values), written back through the pg dialect's tables
// so each type maps as the schema parity test says. The table order follows the foreign keys, derived from
// the schema; the import is one transaction and refuses a target that already holds rows unless told.
import type { Database } from "bun:sqlite";
import { FLEET_EPOCH_SETTING } from "../fleet/service.ts";
import { count, getTableName, is, sql, type SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { getTableConfig as pgTableConfig, PgTable } from "drizzle-orm/pg-core";
import * as sqliteSchema from "./schema.ts";
import * as pgSchema from "./schema-pg.ts";
import type { GatewayDb } from "./handle.ts";

export const EXPORT_FORMAT = "agent-gateway-export";
export const EXPORT_VERSION = 1;

export interface GatewayExport {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  /** How many SQLite migrations the source had applied (its schema version). */
  schema: number;
  exported_at: string;
  /** Rows by schema key (`principals`, `oauthClients`, ...), in dependency order. */
  tables: Record<string, Record<string, unknown>[]>;
}

export class TransferError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TransferError";
  }
}

type TableKey = keyof typeof pgSchema;

/** Schema keys in an order where every table comes after the tables its foreign keys point to. */
export function tableOrder(): TableKey[] {
  const tables = Object.entries(pgSchema).filter(([, v]) => is(v, PgTable)) as [TableKey, PgTable][];
  const byName = new Map(tables.map(([key, table]) => [getTableName(table), key]));
  const deps = new Map(tables.map(([key, table]) => [key, pgTableConfig(table).foreignKeys.map((fk) => byName.get(getTableName(fk.reference().foreignTable))!).filter((d) => d !== key)]));
  const order: TableKey[] = [];
  const visit = (key: TableKey, path: TableKey[]) => {
    if (order.includes(key)) return;
    if (path.includes(key)) throw new Error(`foreign keys form a cycle: ${[...path, key].join(" -> ")}`);
    for (const dep of deps.get(key)!) visit(dep, [...path, key]);
    order.push(key);
  };
  for (const [key] of tables.sort(([a], [b]) => a.localeCompare(b))) visit(key, []);
  return order;
}

/** Every row of a SQLite gateway database, read in one read transaction (a consistent snapshot). */
export function exportSqlite(sqlite: Database, schemaVersion: number, now: Date): GatewayExport {
  const db = drizzle({ client: sqlite, schema: sqliteSchema });
  const tables: GatewayExport["tables"] = {};
  sqlite.transaction(() => {
    for (const key of tableOrder()) tables[key] = db.select().from(sqliteSchema[key] as any).all() as Record<string, unknown>[];
  })();
  return { format: EXPORT_FORMAT, version: EXPORT_VERSION, schema: schemaVersion, exported_at: now.toISOString(), tables };
}

/** Checks a parsed export file: its format, version and that it names only known tables. */
export function checkExport(value: unknown, where: string): GatewayExport {
  const doc = value as Partial<GatewayExport> | null;
  if (!doc || typeof doc !== "object" || doc.format !== EXPORT_FORMAT) throw new TransferError(`${where} is not a gateway export (no "format": "${EXPORT_FORMAT}"); write one with \`agent gateway db export\``);
  if (doc.version !== EXPORT_VERSION) throw new TransferError(`${where} is export version ${JSON.stringify(doc.version)}; this agent reads version ${EXPORT_VERSION}`);
  const known = new Set<string>(tableOrder());
  const tables = doc.tables && typeof doc.tables === "object" ? doc.tables : undefined;
  if (!tables) throw new TransferError(`${where}: "tables" is missing`);
  for (const [key, rows] of Object.entries(tables)) {
    if (!known.has(key)) throw new TransferError(`${where}: unknown table ${JSON.stringify(key)}; known: ${[...known].join(", ")}`);
    if (!Array.isArray(rows)) throw new TransferError(`${where}: tables.${key} must be an array of rows`);
  }
  return doc as GatewayExport;
}

/** Rows per table in the target, for the tables that hold any. */
export async function nonEmptyTables(db: GatewayDb): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const key of tableOrder()) {
    const n = (await db.select({ n: count() }).from(db.t[key] as any))[0]?.n ?? 0;
    if (Number(n) > 0) found[getTableName(db.t[key] as any)] = Number(n);
  }
  return found;
}

/** A statement run for its effect on the pg dialect (the handle is typed by the SQLite definition). */
function execute(db: GatewayDb, query: SQL): Promise<unknown> {
  return (db as unknown as { execute(q: SQL): Promise<unknown> }).execute(query);
}

/**
 * The rows of `key` that move. The fleet journal and its epoch stay behind: clients hold cursors into the
 * old gateway's journal, which may have gone on after the export; the target starts a new epoch, so such
 * a cursor is answered `reset_required` (refetch the catalog) instead of resuming into other events.
 */
function movedRows(key: TableKey, rows: Record<string, unknown>[]): Record<string, unknown>[] {
  if (key === "fleetEvents") return [];
  if (key === "gatewaySettings") return rows.filter((row) => row.key !== FLEET_EPOCH_SETTING);
  return rows;
}

/** Rows inserted per statement: well under PostgreSQL's 65,535 bound parameters for the widest table. */
const CHUNK = 500;

/**
 * Writes an export into a PostgreSQL gateway database in one transaction. A target with rows is refused
 * unless `replace` (then everything in it is deleted first, in the same transaction). Identity sequences
 * (audit events, session transitions) continue after the imported ids. Returns the rows written per table.
 */
export async function importIntoPg(db: GatewayDb, doc: GatewayExport, options: { replace: boolean }): Promise<Record<string, number>> {
  if (db.engine !== "pg") throw new TransferError("the import target must be a PostgreSQL database");
  const order = tableOrder();
  return db.tx(async (tx) => {
    const existing = await nonEmptyTables(tx);
    if (Object.keys(existing).length > 0) {
      if (!options.replace) {
        const list = Object.entries(existing).map(([name, n]) => `${name} (${n})`).join(", ");
        throw new TransferError(`the target database already holds gateway data: ${list}; import into an empty database, or pass --replace to delete it first`);
      }
      await execute(tx, sql.raw(`TRUNCATE ${order.map((key) => `"${getTableName(tx.t[key] as any)}"`).join(", ")}`));
    }
    const written: Record<string, number> = {};
    for (const key of order) {
      const rows = movedRows(key, doc.tables[key] ?? []);
      for (let i = 0; i < rows.length; i += CHUNK) await tx.insert(tx.t[key] as any).values(rows.slice(i, i + CHUNK) as any);
      written[getTableName(tx.t[key] as any)] = rows.length;
      for (const column of pgTableConfig(tx.t[key] as unknown as PgTable).columns) {
        if (!column.generatedIdentity) continue;
        const table = getTableName(tx.t[key] as any);
        // Identity sequences do not see explicit ids: the next generated one must come after them.
        await execute(tx, sql.raw(`SELECT setval(pg_get_serial_sequence('"${table}"', '${column.name}'), coalesce((SELECT max("${column.name}") FROM "${table}"), 0) + 1, false)`));
      }
    }
    return written;
  });
}
