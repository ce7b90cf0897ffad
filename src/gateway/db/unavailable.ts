// Which errors mean "the database cannot be used right now" (PostgreSQL down, restarting or failed over, a
// dropped connection, SQLite locked past its busy timeout or failing on disk), as opposed to a bug in a
// query. Those are answered 503 and never let a request through (gateway.md, authentication rule 2), and
// they are recognized by the codes the drivers set, never by message text. Measured with Bun 1.4.5 against
// a PostgreSQL server stopped and started under load (test/gateway/replicas/outage.test.ts):
//   - server down, refused, unresolvable host, missing socket: ERR_POSTGRES_CONNECTION_REFUSED (no errno);
//   - `pg_ctl stop -m fast` or pg_terminate_backend during a query: ERR_POSTGRES_SERVER_ERROR, errno 57P01;
//   - `pg_ctl stop -m immediate` during a query: ERR_POSTGRES_CONNECTION_CLOSED;
//   - bun:sqlite: SQLiteError with code SQLITE_BUSY ("database is locked"), SQLITE_IOERR_*, SQLITE_FULL, ...
// drizzle wraps a driver's error in a DrizzleQueryError (its message holds the query and its parameters);
// the driver's error is its `cause`.

/** Bun's own codes for a connection that could not be made or was lost. */
const PG_CONNECTION_CODES = new Set([
  "ERR_POSTGRES_CONNECTION_CLOSED",
  "ERR_POSTGRES_CONNECTION_REFUSED",
  "ERR_POSTGRES_CONNECTION_FAILED",
  "ERR_POSTGRES_CONNECTION_TIMEOUT",
  "ERR_POSTGRES_IDLE_TIMEOUT",
  "ERR_POSTGRES_LIFETIME_TIMEOUT",
  "ERR_POSTGRES_TLS_NOT_AVAILABLE",
  "ERR_POSTGRES_TLS_UPGRADE_FAILED",
]);

/**
 * SQLSTATEs (the server's `errno`) that say the server, not the statement, is the problem: class 08
 * connection exception, 28 the gateway's role is refused, 53 insufficient resources (disk full, out of
 * memory, too many connections), 57P01-57P03 and 57P05 shutdown or not yet accepting connections, 58 system
 * error (I/O), 3D000 the database is gone, 25006 a read-only server (a standby after a failover).
 */
function pgServerUnavailable(sqlstate: string): boolean {
  return /^(08|28|53|58)/.test(sqlstate) || ["57P01", "57P02", "57P03", "57P05", "3D000", "25006"].includes(sqlstate);
}

/** SQLite primary result codes for a database that cannot be used now (extended codes add a suffix). */
const SQLITE_CODES = new Set(["SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_IOERR", "SQLITE_FULL", "SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_NOMEM", "SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_PROTOCOL"]);

/**
 * The driver's code when `error` (or an error it wraps) means the database is unavailable, e.g.
 * `ERR_POSTGRES_CONNECTION_REFUSED`, `57P01` or `SQLITE_BUSY`; undefined for any other error. The code is
 * safe to log: it never carries a query, a value or the database's URL.
 */
export function databaseUnavailable(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const { name, code, errno } = e as Error & { code?: unknown; errno?: unknown };
    if (typeof code !== "string") continue;
    if (name === "PostgresError") {
      if (PG_CONNECTION_CODES.has(code)) return code;
      if (typeof errno === "string" && pgServerUnavailable(errno)) return errno;
    } else if (name === "SQLiteError") {
      const primary = /^SQLITE_[A-Z]+/.exec(code)?.[0];
      if (primary && SQLITE_CODES.has(primary)) return code;
    }
  }
  return undefined;
}
