// The gateway database on PostgreSQL (drizzle's pg dialect on Bun's SQL client): the same tables, columns
// and indexes as schema.ts, the SQLite definition, with types mapped: integer milliseconds and counters are
// bigint (read as JS numbers), boolean flags boolean, JSON stays text (drizzle on Bun's client encodes jsonb
// twice). test/gateway/db/schema-parity.test.ts holds the two definitions to each other.
import { sql } from "drizzle-orm";
import { bigint, boolean, customType, index, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";

/** JSON in a text column, as SQLite's `text(..., { mode: "json" })` keeps it. */
function jsonText<T>(name: string) {
  return customType<{ data: T; driverData: string }>({
    dataType: () => "text",
    toDriver: (value) => JSON.stringify(value),
    fromDriver: (value) => JSON.parse(value) as T,
  })(name);
}

export const principals = pgTable("principals", {
  id: text("id").primaryKey(),
  username: text("username").notNull().unique(),
  displayName: text("display_name"),
  /** `human` for people, `machine_client` for OAuth client-credential callers. */
  kind: text("kind", { enum: ["human", "machine_client"] }).notNull().default("human"),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

export const passwordCredentials = pgTable("password_credentials", {
  principalId: text("principal_id").primaryKey().references(() => principals.id, { onDelete: "cascade" }),
  hash: text("hash").notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

export const pamBindings = pgTable(
  "pam_bindings",
  {
    principalId: text("principal_id").primaryKey().references(() => principals.id, { onDelete: "cascade" }),
    service: text("service").notNull(),
    systemUser: text("system_user").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("pam_bindings_system_user").on(t.systemUser)],
);

export const personalAccessTokens = pgTable(
  "personal_access_tokens",
  {
    id: text("id").primaryKey(),
    principalId: text("principal_id").notNull().references(() => principals.id, { onDelete: "cascade" }),
    label: text("label").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    lastUsedAt: bigint("last_used_at", { mode: "number" }),
    revoked: boolean("revoked").notNull().default(false),
    revokedAt: bigint("revoked_at", { mode: "number" }),
  },
  (t) => [index("pat_principal").on(t.principalId)],
);

export const webSessions = pgTable(
  "web_sessions",
  {
    id: text("id").primaryKey(),
    sessionHash: text("session_hash").notNull().unique(),
    principalId: text("principal_id").notNull().references(() => principals.id, { onDelete: "cascade" }),
    csrfToken: text("csrf_token").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    lastSeenAt: bigint("last_seen_at", { mode: "number" }).notNull(),
    sourceIp: text("source_ip"),
    userAgent: text("user_agent"),
    /** A one-time message for the next page view (e.g. a freshly created token). */
    flash: text("flash"),
    revokedAt: bigint("revoked_at", { mode: "number" }),
  },
  (t) => [index("web_sessions_principal").on(t.principalId)],
);

export const oauthClients = pgTable("oauth_clients", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  clientType: text("client_type", { enum: ["public", "confidential"] }).notNull(),
  grantTypes: jsonText<string[]>("grant_types").notNull(),
  scopes: jsonText<string[]>("scopes").notNull(),
  secretHash: text("secret_hash"),
  /** RFC 7591 `token_endpoint_auth_method` as registered: `none` for public clients, else a client_secret_* method. */
  tokenEndpointAuthMethod: text("token_endpoint_auth_method", { enum: ["none", "client_secret_basic", "client_secret_post"] }),
  /** The machine_client principal a confidential client acts as. */
  principalId: text("principal_id").references(() => principals.id, { onDelete: "set null" }),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  /**
   * How it was registered: `admin_cli` (`agent gateway client register`) or `http` (RFC 7591). Null: by a gateway
   * older than migration 0003 that could not tell (a confidential one without a registration grant is refused).
   */
  registeredVia: text("registered_via", { enum: ["admin_cli", "http"] }),
});

export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: text("id").primaryKey(),
    clientId: text("client_id").notNull().references(() => oauthClients.id, { onDelete: "cascade" }),
    principalId: text("principal_id").notNull().references(() => principals.id, { onDelete: "cascade" }),
    scopes: jsonText<string[]>("scopes").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    revokedAt: bigint("revoked_at", { mode: "number" }),
  },
  (t) => [index("oauth_grants_principal").on(t.principalId)],
);

export const oauthAccessTokens = pgTable(
  "oauth_access_tokens",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    grantId: text("grant_id").references(() => oauthGrants.id, { onDelete: "cascade" }),
    clientId: text("client_id").notNull().references(() => oauthClients.id, { onDelete: "cascade" }),
    principalId: text("principal_id").notNull().references(() => principals.id, { onDelete: "cascade" }),
    scopes: jsonText<string[]>("scopes").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
    revokedAt: bigint("revoked_at", { mode: "number" }),
  },
  (t) => [index("oauth_access_tokens_grant").on(t.grantId), index("oauth_access_tokens_client").on(t.clientId)],
);

export const oauthRefreshTokens = pgTable(
  "oauth_refresh_tokens",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    grantId: text("grant_id").notNull().references(() => oauthGrants.id, { onDelete: "cascade" }),
    familyId: text("family_id").notNull(),
    parentId: text("parent_id"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
    idleExpiresAt: bigint("idle_expires_at", { mode: "number" }).notNull(),
    usedAt: bigint("used_at", { mode: "number" }),
    revokedAt: bigint("revoked_at", { mode: "number" }),
  },
  (t) => [index("oauth_refresh_tokens_family").on(t.familyId)],
);

export const oauthDeviceCodes = pgTable(
  "oauth_device_codes",
  {
    deviceCodeHash: text("device_code_hash").primaryKey(),
    userCode: text("user_code").notNull().unique(),
    clientId: text("client_id").notNull().references(() => oauthClients.id, { onDelete: "cascade" }),
    scopes: jsonText<string[]>("scopes").notNull(),
    status: text("status", { enum: ["pending", "approved", "denied", "consumed"] }).notNull(),
    principalId: text("principal_id").references(() => principals.id, { onDelete: "cascade" }),
    intervalSecs: bigint("interval_secs", { mode: "number" }).notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
    lastPolledAt: bigint("last_polled_at", { mode: "number" }),
  },
  (t) => [index("oauth_device_codes_expires").on(t.expiresAt)],
);

export const configurations = pgTable("configurations", {
  name: text("name").primaryKey(),
  format: text("format", { enum: ["yaml", "toml"] }).notNull(),
  hasPreRunScript: boolean("has_pre_run_script").notNull().default(false),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  /**
   * The file's content and the pre-run script, mirrored from the registry's files so every replica of one
   * database launches the same configuration (null: written before replicas, read from the files).
   */
  content: text("content"),
  preRunScript: text("pre_run_script"),
});

export const projects = pgTable("projects", {
  id: text("id").primaryKey(),
  path: text("path").notNull().unique(),
  configName: text("config_name").notNull().references(() => configurations.name, { onDelete: "restrict" }),
  registeredAt: bigint("registered_at", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  /** The host whose gateway supervises the project's sessions (null: written before hosts were recorded). */
  ownerHost: text("owner_host"),
});

export const sessions = pgTable("sessions", {
  id: text("id").primaryKey(),
  projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "restrict" }),
  launchMode: text("launch_mode", { enum: ["project_direct", "worktree_backed"] }).notNull(),
  state: text("state", { enum: ["starting", "running", "stopped", "failed", "cleanup_pending", "reaped"] }).notNull(),
  pid: bigint("pid", { mode: "number" }),
  /** The daemon process's start time (clock ticks since boot, /proc/<pid>/stat): with the pid, its identity. */
  pidStartTicks: text("pid_start_ticks"),
  port: bigint("port", { mode: "number" }),
  daemonEpoch: text("daemon_epoch"),
  sessionDir: text("session_dir"),
  worktreePath: text("worktree_path"),
  worktreeBranch: text("worktree_branch"),
  /** The pending bootstrap file of the current generation; removed at cleanup when the daemon never read it. */
  bootstrapFile: text("bootstrap_file"),
  currentGenerationId: text("current_generation_id"),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  /** The host whose gateway supervises the daemon (null: written before hosts were recorded). */
  ownerHost: text("owner_host"),
});

export const sessionTransitions = pgTable(
  "session_transitions",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    sessionId: text("session_id").notNull().references(() => sessions.id, { onDelete: "cascade" }),
    fromState: text("from_state"),
    toState: text("to_state").notNull(),
    reason: text("reason"),
    at: bigint("at", { mode: "number" }).notNull(),
  },
  (t) => [index("session_transitions_session").on(t.sessionId)],
);

export const serviceCredentials = pgTable(
  "service_credentials",
  {
    generationId: text("generation_id").primaryKey(),
    sessionId: text("session_id").notNull().references(() => sessions.id, { onDelete: "cascade" }),
    state: text("state", { enum: ["pending", "active", "invalidated"] }).notNull(),
    /** HMAC-SHA-256(pepper, token), hex; the token itself is never stored. */
    verifier: text("verifier").notNull(),
    capabilities: jsonText<unknown>("capabilities"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    activatedAt: bigint("activated_at", { mode: "number" }),
    invalidatedAt: bigint("invalidated_at", { mode: "number" }),
    lastUsedAt: bigint("last_used_at", { mode: "number" }),
    invalidationCause: text("invalidation_cause"),
  },
  (t) => [index("service_credentials_session").on(t.sessionId)],
);

export const auditEvents = pgTable(
  "audit_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    at: bigint("at", { mode: "number" }).notNull(),
    principalId: text("principal_id"),
    sourceIp: text("source_ip"),
    action: text("action").notNull(),
    target: text("target"),
    outcome: text("outcome", { enum: ["success", "failure", "denied", "error"] }).notNull(),
    detail: text("detail"),
  },
  (t) => [index("audit_events_at").on(t.at), index("audit_events_principal").on(t.principalId, t.at)],
);

export const rateLimitState = pgTable(
  "rate_limit_state",
  {
    limiter: text("limiter").notNull(),
    key: text("key").notNull(),
    /** Attempt times (ms) inside the current window, JSON array. */
    attempts: jsonText<number[]>("attempts").notNull().default(sql`'[]'`),
    lockedUntil: bigint("locked_until", { mode: "number" }),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.limiter, t.key] })],
);

/** Values every replica shares (the pepper's fingerprint, the TLS identity, the fleet epoch), by key. */
export const gatewaySettings = pgTable("gateway_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

/** The fleet event journal (FleetEventV1 records as sent), shared by every replica; `seq` is the cursor's position. */
export const fleetEvents = pgTable(
  "fleet_events",
  {
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    at: bigint("at", { mode: "number" }).notNull(),
    /** The event's JSON text. */
    body: text("body").notNull(),
    bytes: bigint("bytes", { mode: "number" }).notNull(),
  },
  (t) => [index("fleet_events_at").on(t.at)],
);

/** Machines whose host agent joins the gateway (issue 39): presence is kept by the fronts holding its connection. */
export const hosts = pgTable("hosts", {
  name: text("name").primaryKey(),
  firstSeenAt: bigint("first_seen_at", { mode: "number" }).notNull(),
  lastSeenAt: bigint("last_seen_at", { mode: "number" }).notNull(),
  /** Online while a front holds its connection: fronts push this forward on every heartbeat (ms). */
  onlineUntil: bigint("online_until", { mode: "number" }).notNull(),
  agentVersion: text("agent_version"),
  protocol: bigint("protocol", { mode: "number" }),
});

/** Host credentials (`hst_...`): one host's right to join, issued and revoked by an administrator. */
export const hostCredentials = pgTable(
  "host_credentials",
  {
    id: text("id").primaryKey(),
    hostName: text("host_name").notNull(),
    label: text("label").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    lastUsedAt: bigint("last_used_at", { mode: "number" }),
    revokedAt: bigint("revoked_at", { mode: "number" }),
  },
  (t) => [index("host_credentials_host").on(t.hostName)],
);
