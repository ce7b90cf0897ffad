// The gateway's context, built once at startup: config, clock, paths, database, pepper, credential
// stores, limiters, audit log. Nothing is a module-level singleton. Only the composition (server/app.ts,
// serve.ts, the admin CLI) holds all of it: each module takes what it uses, a `...Deps` type picking those
// members (OAuthRouteDeps, LoginDeps, WebRouteDeps, FleetDeps, ProxyDeps, EdgeDeps, ...).
import { systemClock, type Clock } from "../util/clock.ts";
import { resolveDataDir } from "./config/load.ts";
import type { GatewayConfig } from "./config/types.ts";
import type { GatewayDb } from "./db/open.ts";
import { openConfiguredDb } from "./db/open-configured.ts";
import type { Database } from "bun:sqlite";
import { AuditLog } from "./audit/log.ts";
import { BearerVerifier } from "./auth/bearer.ts";
import { PasswordHasher } from "./auth/password.ts";
import { PatStore } from "./auth/pats.ts";
import { establishPepper } from "./auth/pepper.ts";
import { PrincipalStore } from "./auth/principals.ts";
import { createLimiters, type Limiters } from "./net/rate-limit.ts";
import { NetworkPolicy } from "./net/policy.ts";
import type { PamAuthenticator } from "./auth/pam.ts";
import { SqliteStamp, type DbStamp } from "./auth/verified-cache.ts";
import { PgChanges } from "./db/pg-changes.ts";
import { databasePassword } from "./config/database-password.ts";
import { OpenStreams } from "./server/streams.ts";
import { issuerUrl } from "./oauth/metadata.ts";
import { FleetChanges } from "./fleet/changes.ts";
import { AuthFailureCounts, logEvent } from "./auth/failure-counts.ts";
import { SessionSupervisor } from "./sessions/supervisor.ts";
import { DbSessionStore } from "./sessions/db-store.ts";
import { claimRows } from "./sessions/ownership.ts";
import { UpstreamClient } from "./sessions/upstream/upstream-client.ts";
import type { RegistryFs } from "./registry/registry-fs.ts";
import { HostCredentialStore } from "./hosts/credentials.ts";
import { HostLinks } from "./hosts/links.ts";
import { HostPresence } from "./hosts/presence.ts";
import { FrontRouting } from "./hosts/routing.ts";

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** A structured event (`agent gateway serve` writes one JSON line); fields never hold secrets. */
  event?(level: "info" | "warn" | "error", event: string, fields: Record<string, string | number | boolean | null>): void;
}

export interface GatewayContext {
  config: GatewayConfig;
  clock: Clock;
  dataDir: string;
  db: GatewayDb;
  /** The SQLite connection; null on PostgreSQL. */
  sqlite: Database | null;
  /** The database engine and its version (GET /api/v1/version). */
  database: { engine: "sqlite" | "postgresql"; version: string };
  migrated: boolean;
  pepper: Uint8Array;
  hasher: PasswordHasher;
  principals: PrincipalStore;
  pats: PatStore;
  bearer: BearerVerifier;
  audit: AuditLog;
  limiters: Limiters;
  policy: NetworkPolicy;
  /** PAM checks, when the platform has PAM (Linux glibc). */
  pam?: PamAuthenticator;
  logger: Logger;
  /** Authentication failures, logged as counts (auth/failure-counts.ts). */
  authFailures: AuthFailureCounts;
  /** Whether the server runs TLS (Secure cookies, `__Host-` prefix, HSTS). */
  tls: boolean;
  /** The OAuth issuer and base of discovery URLs (set from the bound port once the server listens). */
  issuer: string;
  /** The database's change stamp, which the token caches and open streams follow (auth/verified-cache.ts). */
  stamp: DbStamp;
  /** Long-lived responses, closed when the credential that opened them is revoked. */
  streams: OpenStreams;
  /** Project/session change signals for fleet observation (issue 10). */
  fleetChanges: FleetChanges;
  /** Sessions and their daemons (sessions/supervisor.ts). */
  sessions: SessionSupervisor;
  /** The session proxy's pooled HTTP/1.1 connections to daemons (sessions/upstream/upstream-client.ts). */
  upstream: UpstreamClient;
  /** Host credentials (`hst_`), issued and revoked by an administrator (hosts/credentials.ts). */
  hostCredentials: HostCredentialStore;
  /** The host connections this front holds (hosts/links.ts). */
  hostLinks: HostLinks;
  /** Where owner-bound operations go: this host, a joined host's connection, or a refusal (hosts/routing.ts). */
  routing: FrontRouting;
  /** Host presence pushed by this front (hosts/presence.ts; started by serve). */
  presence: HostPresence;
  /** File operations of the configuration registry; tests inject failures here (default: node:fs, atomic writes). */
  registryFs?: RegistryFs;
}

export interface ContextOptions {
  config: GatewayConfig;
  env: Record<string, string | undefined>;
  clock?: Clock;
  logger?: Logger;
  /** `:memory:` for an in-memory database (OpenAPI export, tests). */
  dataDir?: string;
  pam?: PamAuthenticator;
  tls?: boolean;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

export async function createGatewayContext(options: ContextOptions): Promise<GatewayContext> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const dataDir = options.dataDir ?? resolveDataDir(config, options.env);
  const opened = await openConfiguredDb(config, options.env, dataDir);
  let pepper: Uint8Array;
  try {
    pepper =
      dataDir === ":memory:" && !config.auth.password.pepper_file
        ? crypto.getRandomValues(new Uint8Array(32))
        : await establishPepper(opened.db, { dataDir, pepperFile: config.auth.password.pepper_file, host: config.host_name, database: opened.path, now: new Date(clock.now()) });
  } catch (error) {
    await opened.db.close();
    throw error;
  }
  const stamp = await changeStamp(opened, config, options.env, options.logger ?? silentLogger);
  const pats = new PatStore(opened.db, clock, stamp);
  const hostCredentials = new HostCredentialStore(opened.db, clock, stamp);
  const bearer = new BearerVerifier(opened.db, pats, pepper, clock, stamp, hostCredentials);
  const authFailures = new AuthFailureCounts(options.logger ?? silentLogger, () => clock.now());
  bearer.onFailure = (kind) => authFailures.count(kind);
  const tls = options.tls ?? false;
  const hostLinks = new HostLinks();
  const ctx: Omit<GatewayContext, "sessions" | "presence"> & { sessions?: SessionSupervisor; presence?: HostPresence } = {
    config,
    clock,
    dataDir,
    db: opened.db,
    sqlite: opened.sqlite,
    database: { engine: opened.engine.name, version: opened.engine.version },
    migrated: opened.migrated,
    pepper,
    hasher: new PasswordHasher(pepper, config.auth.password),
    principals: new PrincipalStore(opened.db, clock),
    pats,
    bearer,
    authFailures,
    audit: new AuditLog(opened.db, clock),
    limiters: await createLimiters(config.auth, clock, opened.db),
    policy: new NetworkPolicy({ ...config.network, trusted_proxies: config.auth.trusted_proxies }),
    pam: options.pam,
    logger: options.logger ?? silentLogger,
    tls,
    issuer: issuerUrl(config, config.listen.port, tls),
    stamp,
    streams: new OpenStreams((auth) => bearer.stillValid(auth), stamp, clock),
    fleetChanges: new FleetChanges(),
    upstream: new UpstreamClient(),
    hostCredentials,
    hostLinks,
    routing: new FrontRouting({ config, db: opened.db, hostLinks }),
  };
  ctx.presence = new HostPresence(ctx as GatewayContext, hostLinks);
  ctx.sessions = new SessionSupervisor(ctx as GatewayContext, new DbSessionStore(ctx as GatewayContext), (me) => claimRows(opened.db, me));
  return ctx as GatewayContext;
}

/**
 * The database's change stamp: SQLite's commit counters, or on PostgreSQL the change listener
 * (db/pg-changes.ts), also moved by this process's own writes, and stopped by `db.close()`, so no
 * connection outlives the context. Called before the stores prepare their statements.
 */
async function changeStamp(opened: { db: GatewayDb; sqlite: Database | null }, config: GatewayConfig, env: Record<string, string | undefined>, logger: Logger): Promise<DbStamp> {
  if (opened.sqlite) return new SqliteStamp(opened.sqlite);
  const changes = await PgChanges.start({
    url: config.database.url!,
    password: databasePassword(config, env),
    report: (event, reason) => logEvent(logger, event === "lost" ? "warn" : "info", `database.listener_${event}`, { reason }),
  });
  changes.followWrites(opened.db);
  const closeDb = opened.db.close;
  opened.db.close = async () => {
    await changes.close();
    await closeDb();
  };
  return changes;
}
