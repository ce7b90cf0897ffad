// The gateway's two schema definitions (schema.ts for SQLite, schema-pg.ts for PostgreSQL) and the
// databases their migrations build hold the same tables, columns (types mapped), keys and indexes.
import { describe, expect, test } from "bun:test";
import { getTableConfig as sqliteConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { getTableConfig as pgConfig, PgTable } from "drizzle-orm/pg-core";
import { is } from "drizzle-orm";
import { SQL } from "bun";
import * as sqliteSchema from "../../../src/gateway/db/schema.ts";
import * as pgSchema from "../../../src/gateway/db/schema-pg.ts";
import { openGatewayDb } from "../../../src/gateway/db/open.ts";
import { openGatewayPg } from "../../../src/gateway/db/open-pg.ts";
import { freshPgDatabase, pgTest } from "../../helpers/postgres.ts";

/** SQLite column type (and drizzle mode) -> the PostgreSQL type it maps to. */
const TYPE_MAP: Record<string, string> = {
  "SQLiteText/string": "PgText/string",
  "SQLiteTextJson/json": "PgCustomColumn/custom",
  "SQLiteInteger/number": "PgBigInt53/number",
  "SQLiteBoolean/boolean": "PgBoolean/boolean",
};

function describeTable(config: { name: string; columns: any[]; indexes: any[]; primaryKeys: any[]; foreignKeys: any[] }, map: (type: string) => string) {
  return {
    name: config.name,
    columns: config.columns
      .map((c) => ({ name: c.name, type: map(`${c.columnType}/${c.dataType}`), notNull: c.notNull, primary: c.primary, unique: c.isUnique, hasDefault: c.hasDefault, enum: c.enumValues ?? null }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    indexes: config.indexes.map((i) => ({ name: i.config.name, unique: i.config.unique, on: i.config.columns.map((c: any) => c.name) })).sort((a, b) => a.name.localeCompare(b.name)),
    primaryKeys: config.primaryKeys.map((p) => p.columns.map((c: any) => c.name)),
    foreignKeys: config.foreignKeys
      .map((f) => {
        const ref = f.reference();
        return { columns: ref.columns.map((c: any) => c.name), to: `${ref.foreignTable[Symbol.for("drizzle:Name")]}(${ref.foreignColumns.map((c: any) => c.name)})`, onDelete: f.onDelete ?? "no action" };
      })
      .sort((a, b) => a.columns.join().localeCompare(b.columns.join())),
  };
}

const sqliteTables = Object.values(sqliteSchema).filter((v) => is(v, SQLiteTable)) as SQLiteTable[];
const pgTables = Object.values(pgSchema).filter((v) => is(v, PgTable)) as PgTable[];

describe("schema parity", () => {
  test("every table, column (type mapped), key and index of schema.ts is in schema-pg.ts and nothing else", () => {
    expect(Object.keys(pgSchema).sort()).toEqual(Object.keys(sqliteSchema).sort());
    const fromSqlite = sqliteTables.map((t) => describeTable(sqliteConfig(t) as any, (type) => TYPE_MAP[type] ?? `unmapped ${type}`)).sort((a, b) => a.name.localeCompare(b.name));
    const fromPg = pgTables.map((t) => describeTable(pgConfig(t) as any, (type) => type)).sort((a, b) => a.name.localeCompare(b.name));
    expect(fromPg).toEqual(fromSqlite);
    expect(fromSqlite.length).toBeGreaterThan(15);
  });

  pgTest("the migrations of both dialects build the same tables, columns and indexes", async () => {
    const lite = openGatewayDb(":memory:");
    const liteTables = (lite.sqlite!.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != '__drizzle_migrations' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    const liteShape = liteTables.map((name) => ({
      name,
      columns: (lite.sqlite!.query(`PRAGMA table_info("${name}")`).all() as { name: string; notnull: number; pk: number }[]).map((c) => `${c.name}${c.notnull || c.pk ? " not null" : ""}`).sort(),
    }));
    const liteIndexes = (lite.sqlite!.query("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    lite.sqlite!.close();

    const url = await freshPgDatabase();
    const pg = await openGatewayPg(url);
    await pg.db.close();
    const sql = new SQL(url);
    const cols = (await sql`SELECT table_name, column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name`) as { table_name: string; column_name: string; is_nullable: string }[];
    const pgShape = [...new Set(cols.map((c) => c.table_name))].sort().map((name) => ({
      name,
      columns: cols.filter((c) => c.table_name === name).map((c) => `${c.column_name}${c.is_nullable === "NO" ? " not null" : ""}`).sort(),
    }));
    // Primary keys are indexes with generated names on both sides (sqlite_autoindex_*, *_pkey / *_pk).
    const pgIndexes = ((await sql`SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_pk' ORDER BY indexname`) as { indexname: string }[]).map((r) => r.indexname);
    await sql.close();
    expect(pgShape).toEqual(liteShape);
    expect(pgIndexes.sort()).toEqual(liteIndexes.sort());
  }, 60_000);
});
