// The session store (one SQLite file per session dir, drizzle on bun:sqlite). Times are integer
// milliseconds since the epoch. The record journal is the source of truth: the conversation is a fold
// of its engine records, so nothing else needs to be written for a session to be resumed.
import { blob, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** One row: the session's identity and lifecycle. */
export const sessionMeta = sqliteTable("session_meta", {
  id: text("id").primaryKey(),
  project: text("project").notNull(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  title: text("title"),
  /** `running` (a daemon may host it), `stopping` (the engine is closing), `stopped`. */
  state: text("state", { enum: ["running", "stopping", "stopped"] }).notNull().default("running"),
  /** Set once a stop has flushed every record; stopped history is served only then. */
  finalized: integer("finalized", { mode: "boolean" }).notNull().default(false),
  /** Bumped by every change of the history source (new records, state changes). */
  sourceRevision: integer("source_revision").notNull().default(0),
  /** Prompts accepted so far (the `generation` of a prompt-acceptance record). */
  generation: integer("generation").notNull().default(0),
  /** The HMAC key of cursors, windows and checkpoints (base64); survives restarts so an old-epoch cursor is told apart from a forged one. */
  tokenKey: text("token_key").notNull(),
});

/** The ordered record journal: `seq` is the record's position; `body` is its JSON (a SyncRecordV1 without seq). */
export const records = sqliteTable(
  "records",
  {
    seq: integer("seq").primaryKey(),
    type: text("type").notNull(),
    at: integer("at").notNull(),
    body: text("body").notNull(),
  },
  (t) => [index("records_type").on(t.type)],
);

/** The operation ledger: one row per (window, operation) with the payload digest and the stored result. */
export const operations = sqliteTable(
  "operations",
  {
    windowId: text("window_id").notNull(),
    operation: text("operation").notNull(),
    route: text("route").notNull(),
    digest: text("digest").notNull(),
    status: text("status", { enum: ["admitted", "in_progress", "completed", "failed"] }).notNull(),
    /** The HTTP status and body the first response carried; a retry gets the same. */
    httpStatus: integer("http_status").notNull(),
    result: text("result").notNull(),
    bytes: integer("bytes").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.windowId, t.operation] }), index("operations_expiry").on(t.expiresAt)],
);

/** Binary attachments (images) addressed by content: `att_` plus the SHA-256 of the bytes. */
export const attachments = sqliteTable("attachments", {
  id: text("id").primaryKey(),
  mediaType: text("media_type").notNull(),
  data: blob("data", { mode: "buffer" }).notNull(),
  createdAt: integer("created_at").notNull(),
});
