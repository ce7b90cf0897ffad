// A real PostgreSQL (Debian's `postgresql` package) for tests: one server per `bun test` process, started
// lazily by the first test that asks, on a free loopback port with its socket and data in a temp dir, and
// stopped when the process exits. Each caller gets a fresh database (`freshPgDatabase`), so test files
// never see each other's rows. Outage tests start a server of their own (`startPgServer`) to stop and start. As root the server runs as the `postgres` user (initdb refuses root).
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { test } from "bun:test";

export interface PgServer {
  port: number;
  /** The superuser's URL for a database (trust authentication on loopback). */
  url(database: string): string;
}

/** A server private to its caller, which may stop and start it (outage tests); same port and data throughout. */
export interface ControlledPgServer extends PgServer {
  /**
   * Stops the server and returns once it is down: `fast` ends every connection and shuts down cleanly,
   * `immediate` aborts like a crash. Synchronous (pg_ctl -w): the process's event loop waits meanwhile, so
   * an in-process gateway sees the outage only once this returns.
   */
  stop(mode?: "fast" | "immediate"): void;
  /** Starts it again and returns once it accepts connections. */
  start(): void;
  /** Whether it is running (as this helper started and stopped it). */
  readonly running: boolean;
}

let server: PgServer | undefined;
let databases = 0;

const PG_ROOT = "/usr/lib/postgresql";
const pgVersions = existsSync(PG_ROOT) ? readdirSync(PG_ROOT).filter((v) => existsSync(join(PG_ROOT, v, "bin", "pg_ctl"))) : [];

/**
 * Why the PostgreSQL tests cannot run here, or undefined when they can: they are skipped with this reason
 * on a machine without the server (as the browser tests are without Chromium); `.ci/run` installs it.
 */
export const PG_MISSING: string | undefined =
  pgVersions.length === 0 ? "PostgreSQL is not installed: apt-get install -y postgresql (Debian's package provides /usr/lib/postgresql/<version>/bin)" : undefined;

/** `test`, skipped (with PG_MISSING named in the file's log) where there is no PostgreSQL server. */
export const pgTest = test.skipIf(PG_MISSING !== undefined);
if (PG_MISSING) console.warn(`skipping PostgreSQL tests: ${PG_MISSING}`);

function binDir(): string {
  if (PG_MISSING) throw new Error(PG_MISSING);
  return join(PG_ROOT, pgVersions.sort((a, b) => Number(b) - Number(a))[0]!, "bin");
}

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

function run(asPostgres: boolean, argv: string[]): void {
  const [cmd, ...args] = asPostgres ? ["runuser", "-u", "postgres", "--", ...argv] : argv;
  const result = spawnSync(cmd!, args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${argv.join(" ")} failed (exit ${result.status}): ${result.stderr || result.stdout}`);
}

/** The process's PostgreSQL server, started on first use. */
export function pgServer(): PgServer {
  return (server ??= startPgServer());
}

/**
 * A new PostgreSQL server of the caller's own, on a free loopback port, removed when the process is gone.
 * Stopping or restarting it disturbs nothing else in the process (pgServer() is another server).
 */
export function startPgServer(): ControlledPgServer {
  const bin = binDir();
  const root = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), "agent-pg-"));
  if (root) chownSync(dir, Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout.trim()), Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim()));
  const data = join(dir, "data");
  run(root, [join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync"]);
  const port = freePort();
  // Durability settings off: a test server's data is thrown away at exit.
  const options = `-p ${port} -k ${dir} -h 127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  const startArgs = [join(bin, "pg_ctl"), "-D", data, "-o", options, "-l", join(dir, "server.log"), "-w", "-t", "60", "start"];
  run(root, startArgs);
  // `bun test` exits without running "exit" listeners, and a killed run runs none: a watchdog process
  // stops the server and removes its files once this process is gone.
  const cleanup = `${root ? "runuser -u postgres -- " : ""}${join(bin, "pg_ctl")} -D ${data} -m immediate -w stop >/dev/null 2>&1; rm -rf ${dir}`;
  const watchdog = Bun.spawn(["sh", "-c", `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${cleanup}`], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  watchdog.unref();
  let running = true;
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    get running() {
      return running;
    },
    stop(mode = "fast") {
      run(root, [join(bin, "pg_ctl"), "-D", data, "-m", mode, "-w", "-t", "60", "stop"]);
      running = false;
    },
    start() {
      run(root, startArgs);
      running = true;
    },
  };
}

/** A new empty database on the process's server (or on `pg`); returns its URL. */
export async function freshPgDatabase(pg: PgServer = pgServer()): Promise<string> {
  const name = `t${process.pid}_${++databases}`;
  const admin = new SQL(pg.url("postgres"));
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.close();
  }
  return pg.url(name);
}
