// The gateway database (drizzle, bun:sqlite). Times are integer milliseconds since the epoch.
// Identity tables are used by the gateway core; oauth_* by the authorization server; configurations,
// projects, sessions and service_credentials by the registries and the session supervisor.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const principals = sqliteTable("principals", {
  id: text("id").primaryKey(),
  username: text("username").notNull().unique(),
  displayName: text("display_name"),
  /** `human` for people, `machine_client` for OAuth client-credential callers. */
  kind: text("kind", { enum: ["human", "machine_client"] }).notNull().default("human"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const passwordCredentials = sqliteTable("password_credentials", {
  principalId: text("principal_id").primaryKey().references(() => principals.id, { onDelete: "cascade" }),
  hash: text("hash").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const pamBindings = sqliteTable(
  "pam_bindings",
  {
    principalId: text("principal_id").primaryKey().references(() => principals.id, { onDelete: "cascade" }),
    service: text("service").notNull(),
    systemUser: text("system_user").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("pam_bindings_system_user").on(t.systemUser)],
);

export const personalAccessTokens = sqliteTable(
  "personal_access_tokens",
  {
    id: text("id").primaryKey(),
    principalId: text("principal_id").notNull().references(() => principals.id, { onDelete: "cascade" }),
    label: text("label").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    revoked: integer("revoked", { mode: "boolean" }).notNull().default(false),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("pat_principal").on(t.principalId)],
);

export const webSessions = sqliteTable(
  "web_sessions",
  {
    id: text("id").primaryKey(),
    sessionHash: text("session_hash").notNull().unique(),
    principalId: text("principal_id").notNull().references(() => principals.id, { onDelete: "cascade" }),
    csrfToken: text("csrf_token").notNull(),
    createdAt: integer("created_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
    sourceIp: text("source_ip"),
    userAgent: text("user_agent"),
    /** A one-time message for the next page view (e.g. a freshly created token). */
    flash: text("flash"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("web_sessions_principal").on(t.principalId)],
);

export const oauthClients = sqliteTable("oauth_clients", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  clientType: text("client_type", { enum: ["public", "confidential"] }).notNull(),
  grantTypes: text("grant_types", { mode: "json" }).$type<string[]>().notNull(),
  scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
  secretHash: text("secret_hash"),
  /** RFC 7591 `token_endpoint_auth_method` as registered: `none` for public clients, else a client_secret_* method. */
  tokenEndpointAuthMethod: text("token_endpoint_auth_method", { enum: ["none", "client_secret_basic", "client_secret_post"] }),
  /** The machine_client principal a confidential client acts as. */
  principalId: text("principal_id").references(() => principals.id, { onDelete: "set null" }),
  createdAt: integer("created_at").notNull(),
  /**
   * How it was registered: `admin_cli` (`agent gateway client register`) or `http` (RFC 7591). Null: by a gateway
   * older than migration 0003 that could not tell (a confidential one without a registration grant is refused).
   */
  registeredVia: text("registered_via", { enum: ["admin_cli", "http"] }),
});

export const oauthGrants = sqliteTable(
  "oauth_grants",
  {
    id: text("id").primaryKey(),
    clientId: text("client_id").notNull().references(() => oauthClients.id, { onDelete: "cascade" }),
    principalId: text("principal_id").notNull().references(() => principals.id, { onDelete: "cascade" }),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("oauth_grants_principal").on(t.principalId)],
);

export const oauthAccessTokens = sqliteTable(
  "oauth_access_tokens",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    grantId: text("grant_id").references(() => oauthGrants.id, { onDelete: "cascade" }),
    clientId: text("client_id").notNull().references(() => oauthClients.id, { onDelete: "cascade" }),
    principalId: text("principal_id").notNull().references(() => principals.id, { onDelete: "cascade" }),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("oauth_access_tokens_grant").on(t.grantId), index("oauth_access_tokens_client").on(t.clientId)],
);

export const oauthRefreshTokens = sqliteTable(
  "oauth_refresh_tokens",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    grantId: text("grant_id").notNull().references(() => oauthGrants.id, { onDelete: "cascade" }),
    familyId: text("family_id").notNull(),
    parentId: text("parent_id"),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    idleExpiresAt: integer("idle_expires_at").notNull(),
    usedAt: integer("used_at"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("oauth_refresh_tokens_family").on(t.familyId)],
);

export const oauthDeviceCodes = sqliteTable(
  "oauth_device_codes",
  {
    deviceCodeHash: text("device_code_hash").primaryKey(),
    userCode: text("user_code").notNull().unique(),
    clientId: text("client_id").notNull().references(() => oauthClients.id, { onDelete: "cascade" }),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    status: text("status", { enum: ["pending", "approved", "denied", "consumed"] }).notNull(),
    principalId: text("principal_id").references(() => principals.id, { onDelete: "cascade" }),
    intervalSecs: integer("interval_secs").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    lastPolledAt: integer("last_polled_at"),
  },
  (t) => [index("oauth_device_codes_expires").on(t.expiresAt)],
);

export const configurations = sqliteTable("configurations", {
  name: text("name").primaryKey(),
  format: text("format", { enum: ["yaml", "toml"] }).notNull(),
  hasPreRunScript: integer("has_pre_run_script", { mode: "boolean" }).notNull().default(false),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  /**
   * The file's content and the pre-run script, mirrored from the registry's files so every replica of one
   * database launches the same configuration (null: written before replicas, read from the files).
   */
  content: text("content"),
  preRunScript: text("pre_run_script"),
});

export const projects = sqliteTable("projects", {
  id: text("id").primaryKey(),
  path: text("path").notNull().unique(),
  configName: text("config_name").notNull().references(() => configurations.name, { onDelete: "restrict" }),
  registeredAt: integer("registered_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  /** The host whose gateway supervises the project's sessions (null: written before hosts were recorded). */
  ownerHost: text("owner_host"),
});

export const sessions = sqliteTable("sessions", {
  id: text("id").primaryKey(),
  projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "restrict" }),
  launchMode: text("launch_mode", { enum: ["project_direct", "worktree_backed"] }).notNull(),
  state: text("state", { enum: ["starting", "running", "stopped", "failed", "cleanup_pending", "reaped"] }).notNull(),
  pid: integer("pid"),
  /** The daemon process's start time (clock ticks since boot, /proc/<pid>/stat): with the pid, its identity. */
  pidStartTicks: text("pid_start_ticks"),
  port: integer("port"),
  daemonEpoch: text("daemon_epoch"),
  sessionDir: text("session_dir"),
  worktreePath: text("worktree_path"),
  worktreeBranch: text("worktree_branch"),
  /** The pending bootstrap file of the current generation; removed at cleanup when the daemon never read it. */
  bootstrapFile: text("bootstrap_file"),
  currentGenerationId: text("current_generation_id"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  /** The host whose gateway supervises the daemon (null: written before hosts were recorded). */
  ownerHost: text("owner_host"),
});

export const sessionTransitions = sqliteTable(
  "session_transitions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sessionId: text("session_id").notNull().references(() => sessions.id, { onDelete: "cascade" }),
    fromState: text("from_state"),
    toState: text("to_state").notNull(),
    reason: text("reason"),
    at: integer("at").notNull(),
  },
  (t) => [index("session_transitions_session").on(t.sessionId)],
);

export const serviceCredentials = sqliteTable(
  "service_credentials",
  {
    generationId: text("generation_id").primaryKey(),
    sessionId: text("session_id").notNull().references(() => sessions.id, { onDelete: "cascade" }),
    state: text("state", { enum: ["pending", "active", "invalidated"] }).notNull(),
    /** HMAC-SHA-256(pepper, token), hex; the token itself is never stored. */
    verifier: text("verifier").notNull(),
    capabilities: text("capabilities", { mode: "json" }).$type<unknown>(),
    createdAt: integer("created_at").notNull(),
    activatedAt: integer("activated_at"),
    invalidatedAt: integer("invalidated_at"),
    lastUsedAt: integer("last_used_at"),
    invalidationCause: text("invalidation_cause"),
  },
  (t) => [index("service_credentials_session").on(t.sessionId)],
);

export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    at: integer("at").notNull(),
    principalId: text("principal_id"),
    sourceIp: text("source_ip"),
    action: text("action").notNull(),
    target: text("target"),
    outcome: text("outcome", { enum: ["success", "failure", "denied", "error"] }).notNull(),
    detail: text("detail"),
  },
  (t) => [index("audit_events_at").on(t.at), index("audit_events_principal").on(t.principalId, t.at)],
);

export const rateLimitState = sqliteTable(
  "rate_limit_state",
  {
    limiter: text("limiter").notNull(),
    key: text("key").notNull(),
    /** Attempt times (ms) inside the current window, JSON array. */
    attempts: text("attempts", { mode: "json" }).$type<number[]>().notNull().default(sql`'[]'`),
    lockedUntil: integer("locked_until"),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.limiter, t.key] })],
);

/** Values every replica shares (the pepper's fingerprint, the TLS identity, the fleet epoch), by key. */
export const gatewaySettings = sqliteTable("gateway_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** The fleet event journal (FleetEventV1 records as sent), shared by every replica; `seq` is the cursor's position. */
export const fleetEvents = sqliteTable(
  "fleet_events",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    at: integer("at").notNull(),
    /** The event's JSON text. */
    body: text("body").notNull(),
    bytes: integer("bytes").notNull(),
  },
  (t) => [index("fleet_events_at").on(t.at)],
);

/** Machines whose host agent joins the gateway (issue 39): presence is kept by the fronts holding its connection. */
export const hosts = sqliteTable("hosts", {
  name: text("name").primaryKey(),
  firstSeenAt: integer("first_seen_at").notNull(),
  lastSeenAt: integer("last_seen_at").notNull(),
  /** Online while a front holds its connection: fronts push this forward on every heartbeat (ms). */
  onlineUntil: integer("online_until").notNull(),
  agentVersion: text("agent_version"),
  protocol: integer("protocol"),
});

/** Host credentials (`hst_...`): one host's right to join, issued and revoked by an administrator. */
export const hostCredentials = sqliteTable(
  "host_credentials",
  {
    id: text("id").primaryKey(),
    hostName: text("host_name").notNull(),
    label: text("label").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("host_credentials_host").on(t.hostName)],
);
