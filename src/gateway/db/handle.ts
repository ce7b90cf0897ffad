// The gateway's database handle, one shape for both dialects (issue 38): drizzle's query builders plus
// the dialect's tables (`db.t`), `db.tx` for transactions and `db.close`. Every statement is awaited.
// Statements are typed by the PostgreSQL definition (schema-pg.ts), so what exists on SQLite only
// (`.get()`, `.all()`, `.run()`, `db.run(sql)`) fails `bun run typecheck` instead of failing on
// PostgreSQL at run time; the PostgreSQL-only top-level methods are left out of the type. On SQLite the
// builders and tables are SQLite's, held to the same columns and JS types by
// test/gateway/db/schema-parity.test.ts (the default test suite runs on SQLite, so what the type still
// allows for PostgreSQL only, e.g. `.for("update")`, fails there). Decision 64.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Database } from "bun:sqlite";
import type { SQL as BunSql } from "bun";
import { sql } from "drizzle-orm";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { drizzle as drizzlePg, type BunSQLDatabase } from "drizzle-orm/bun-sql";
import * as sqliteTables from "./schema.ts";
import * as pgTables from "./schema-pg.ts";

export type Tables = typeof pgTables;
export type Dialect = "sqlite" | "pg";

export interface GatewayDbExtras {
  /** Not `dialect`: drizzle's database object has its own. */
  readonly engine: Dialect;
  /** The tables of this database's dialect. */
  readonly t: Tables;
  /**
   * Runs `fn` as one transaction. SQLite: BEGIN IMMEDIATE ... COMMIT on the one connection, while every
   * other statement of the process waits for it. PostgreSQL: drizzle's transaction holding the gateway's
   * transaction advisory lock, so transactions run one at a time as they do on SQLite (single-winner
   * operations stay single-winner), unless `options.serialized` is false. Inside, use the handle `fn`
   * receives; a nested `tx` joins the outer one.
   */
  tx<T>(fn: (tx: GatewayDb) => Promise<T>, options?: TxOptions): Promise<T>;
  close(): Promise<void>;
}

export interface TxOptions {
  /**
   * false: on PostgreSQL the transaction does not take the gateway's transaction lock and runs beside
   * every other (SQLite runs one transaction at a time whatever this says). Only for a transaction that is
   * correct under concurrency by its statements alone: inserts of new rows, and an UPDATE ... WHERE that
   * claims a row and whose RETURNING decides what follows (a concurrent claimer waits for the row and,
   * under READ COMMITTED, finds the WHERE no longer true). Decision 64 in docs/decisions-gateway.md.
   */
  serialized?: boolean;
}

/** PostgreSQL's database methods without those SQLite lacks (`transaction`: use `tx`). */
type BothDialects = Omit<BunSQLDatabase<Tables>, "execute" | "selectDistinctOn" | "refreshMaterializedView" | "transaction">;

export type GatewayDb = BothDialects & GatewayDbExtras;

/** The first row of a query's result (SQLite's `.get()`, on both dialects). */
export async function first<T>(query: PromiseLike<T[]>): Promise<T | undefined> {
  return (await query)[0];
}

/** One key for the gateway's transaction lock (pg_advisory_xact_lock): "agentgw1" as a 64-bit integer. */
export const TX_LOCK_KEY = 0x6167656e74677731n;

class Mutex {
  private tail: Promise<void> = Promise.resolve();
  held = false;

  async acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const previous = this.tail;
    this.tail = previous.then(() => next);
    await previous;
    this.held = true;
    return () => {
      this.held = false;
      release();
    };
  }
}

const insideTx = new AsyncLocalStorage<true>();

class NestedTxMisuse extends Error {
  constructor() {
    super("a statement on the shared database handle inside a transaction: use the handle the transaction callback receives");
  }
}

export function sqliteHandle(sqlite: Database): GatewayDb {
  const mutex = new Mutex();
  const shared = drizzleSqlite({ client: sqlite, schema: sqliteTables });
  // Statements outside a transaction wait while one is open: on the one connection they would otherwise
  // land inside it (and be rolled back with it, or read what it has not committed).
  const session = (shared as unknown as { session: { prepareQuery: (...args: unknown[]) => Record<string, unknown> } }).session;
  const prepare = session.prepareQuery.bind(session);
  // Set while a query that waited runs (synchronously): drizzle's `all`/`get` read through the same
  // query's `values`, which must not queue behind the mutex this query holds.
  let running = false;
  session.prepareQuery = (...args: unknown[]) => {
    const query = prepare(...args);
    for (const method of ["run", "all", "get", "values"]) {
      const run = (query[method] as (p?: unknown) => unknown).bind(query);
      query[method] = (params?: unknown) => {
        if (!mutex.held || running) return run(params);
        if (insideTx.getStore()) throw new NestedTxMisuse();
        return mutex.acquire().then((release) => {
          running = true;
          try {
            return run(params);
          } finally {
            running = false;
            release();
          }
        });
      };
    }
    return query;
  };
  // The transaction's own drizzle over the same connection, not gated.
  const inner = Object.assign(drizzleSqlite({ client: sqlite, schema: sqliteTables }), { engine: "sqlite" as const, t: sqliteTables }) as unknown as GatewayDb;
  Object.assign(inner, { tx: <T>(fn: (tx: GatewayDb) => Promise<T>) => fn(inner), close: async () => {} });
  const tx = async <T>(fn: (tx: GatewayDb) => Promise<T>): Promise<T> => {
    if (insideTx.getStore()) throw new NestedTxMisuse();
    const release = await mutex.acquire();
    try {
      sqlite.exec("BEGIN IMMEDIATE");
      try {
        const result = await insideTx.run(true, () => fn(inner));
        sqlite.exec("COMMIT");
        return result;
      } catch (error) {
        if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
        throw error;
      }
    } finally {
      release();
    }
  };
  return Object.assign(shared, { engine: "sqlite" as const, t: sqliteTables, tx, close: async () => sqlite.close() }) as unknown as GatewayDb;
}

export function pgHandle(client: BunSql): GatewayDb {
  const t = pgTables as unknown as Tables;
  const shared = drizzlePg({ client, schema: pgTables });
  const tx = async <T>(fn: (tx: GatewayDb) => Promise<T>, options?: TxOptions): Promise<T> => {
    if (insideTx.getStore()) throw new NestedTxMisuse();
    return shared.transaction(async (pgTx) => {
      if (options?.serialized !== false) await pgTx.execute(sql`SELECT pg_advisory_xact_lock(${TX_LOCK_KEY})`);
      const handle = Object.assign(pgTx, { engine: "pg" as const, t }) as unknown as GatewayDb;
      Object.assign(handle, { tx: <U>(inner: (tx: GatewayDb) => Promise<U>) => inner(handle), close: async () => {} });
      return insideTx.run(true, () => fn(handle));
    });
  };
  return Object.assign(shared, { engine: "pg" as const, t, tx, close: () => client.close() }) as unknown as GatewayDb;
}
