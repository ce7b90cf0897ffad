// Usage (in-process, e.g. `agent exec`; the daemon uses the same store):
//   const store = createSession({ dataRoot: dataRoot(env), project: projectRoot });   // sessions/<id>/ (0700)
//   session.subscribe((e) => store.appendEvents([e]));   // or batch: store.appendEvents(events)
//   const events = openSession(sessionDirOf(dataRoot(env), id)).events();   // EngineEvent[] in order
//   createSessionFromConfig({ ..., sessionId: store.id, sessionDir: store.dir, initialEvents: events });
//   store.close();   // also: store.conversation(), store.meta(), listSessions(dataRoot)
// Every open goes through the layout doors of ./migrate/session-dir.ts: a session dir of an older layout
// is migrated before it is resumed and read as it is by listings; a newer one is refused.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { Conversation } from "../../agent/conversation.ts";
import { foldEvents, type EngineEvent } from "../../agent/events.ts";
import { isEngineRecordType } from "../../protocol/record-types.ts";
import { newId } from "../../util/ids.ts";
import { AttachmentTable } from "./attachments.ts";
import { Journal, type RecordBody, type StoredRecord } from "./journal.ts";
import { Ledger, type LedgerLimits } from "./ledger.ts";
import { MetaTable, titleFrom, type SessionMeta, type SessionState } from "./meta.ts";
import { detectLayout, LAYOUT_VERSION, writeLayoutFile } from "./migrate/layout.ts";
import { LayoutTooNewError } from "../../util/file-format-version.ts";
import { sessionDirOfJournal } from "./migrate/journal-file.ts";
import { cleanupMigrations, openStoreReadOnly, prepareSessionDir } from "./migrate/session-dir.ts";
import { openSessionDb, STORE_FILE, type SessionDb } from "./open.ts";
import * as schema from "./schema.ts";
import type { Database } from "bun:sqlite";

export type { RecordBody, StoredRecord, SessionMeta, SessionState };
export { STORE_FILE, LayoutTooNewError, openStoreReadOnly, titleFrom };

/** A record that cannot be read back (bad JSON, wrong shape): the history is corrupt, never silently empty. */
export class StoreCorruptError extends Error {
  constructor(readonly seq: number, detail: string) {
    super(`session journal record ${seq} is corrupt: ${detail}`);
    this.name = "StoreCorruptError";
  }
}

export function sessionsRoot(dataRoot: string): string {
  return join(dataRoot, "sessions");
}

export function sessionDirOf(dataRoot: string, id: string): string {
  if (!/^ses_[0-9a-z]{26}$/.test(id)) throw new Error(`not a session id: '${id}' (expected ses_ followed by 26 characters)`);
  return join(sessionsRoot(dataRoot), id);
}

export interface StoreOptions {
  now?: () => number;
  ledgerLimits?: LedgerLimits;
}

export class SessionStore {
  readonly journal: Journal;
  readonly ledger: Ledger;
  readonly attachments: AttachmentTable;
  private readonly metaTable: MetaTable;
  private readonly now: () => number;

  constructor(
    readonly dir: string,
    readonly id: string,
    readonly db: SessionDb,
    readonly sqlite: Database,
    options: StoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.journal = new Journal(sqlite);
    this.ledger = new Ledger(db, options.ledgerLimits);
    this.attachments = new AttachmentTable(db);
    this.metaTable = new MetaTable(db);
  }

  meta(): SessionMeta {
    return this.metaTable.get()!;
  }

  tokenKey(): Buffer {
    return this.metaTable.tokenKey();
  }

  /** Appends engine events (or daemon records) as journal records, durably, in one transaction. */
  appendEvents(events: readonly (EngineEvent | RecordBody)[]): StoredRecord[] {
    return this.journal.append(events as RecordBody[], this.now());
  }

  /** The engine events of the journal, in order: what `initialEvents` of a resumed session needs. */
  events(): EngineEvent[] {
    const out: EngineEvent[] = [];
    for (const record of this.journal.all()) {
      if (!isEngineRecordType(record.type)) continue;
      out.push(parseRecord(record) as unknown as EngineEvent);
    }
    return out;
  }

  /** The conversation folded from the journal. */
  conversation(): Conversation {
    return foldEvents(this.events());
  }

  setState(state: SessionState, finalized = false): void {
    this.metaTable.setState(this.id, state, finalized, this.now());
  }

  /** Whether the session is stopped because its daemon was idle (idle-exit.ts), not on request. */
  stoppedIdle(): boolean {
    if (this.meta().state !== "stopped") return false;
    const last = this.journal.lastOfType("session_state");
    return last !== null && (parseRecord(last) as { reason?: string }).reason === "idle";
  }

  setTitle(title: string): void {
    this.metaTable.setTitle(this.id, title, this.now());
  }

  nextGeneration(): number {
    return this.metaTable.nextGeneration(this.id);
  }

  /**
   * Lets go of the database file now. A plain close would wait for every statement drizzle prepared to be
   * garbage collected (sqlite3_close_v2), and the deferred close (a WAL checkpoint) could then run while
   * another process (the daemon) opens or migrates the dir: "database is locked". `close(true)` finalizes
   * them all and closes at once; a statement used afterwards throws "Database has closed".
   */
  close(): void {
    this.sqlite.close(true);
  }
}

/** Parses a stored body; a body that is not a JSON object of its row's type is corruption. */
export function parseRecord(record: StoredRecord): RecordBody {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    throw new StoreCorruptError(record.seq, "not valid JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body) || (body as RecordBody).type !== record.type) {
    throw new StoreCorruptError(record.seq, `not a '${record.type}' record`);
  }
  return body as RecordBody;
}

export interface CreateSessionOptions extends StoreOptions {
  dataRoot: string;
  /** The project directory the session works in. */
  project: string;
  title?: string;
}

/** Creates `sessions/<id>/` under the data root (mode 0700) with a new store. */
export function createSession(options: CreateSessionOptions): SessionStore {
  const now = (options.now ?? Date.now)();
  const id = newId("ses", now);
  const dir = join(sessionsRoot(options.dataRoot), id);
  return initSessionDir(dir, id, options);
}

/**
 * Creates a store in a given (empty or new) directory: the daemon's `--session-dir` on first start. A dir
 * that already holds a session is opened (migrated first when it is in an older layout).
 */
export function initSessionDir(dir: string, id: string, options: Omit<CreateSessionOptions, "dataRoot">): SessionStore {
  const now = (options.now ?? Date.now)();
  if (prepareSessionDir(dir, { now: options.now }) === null) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeLayoutFile(dir, { layout: LAYOUT_VERSION, session_id: id });
  }
  const { db, sqlite } = openSessionDb(dir);
  const meta = new MetaTable(db);
  if (!meta.get()) meta.insert({ id, project: options.project, title: options.title ?? null, now, tokenKey: randomBytes(32) });
  return new SessionStore(dir, meta.get()!.id, db, sqlite, options);
}

/** Opens an existing session dir (migrating an older layout first); throws when it holds no session store. */
export function openSession(dir: string, options: StoreOptions = {}): SessionStore {
  if (prepareSessionDir(dir, { now: options.now }) === null || !existsSync(join(dir, STORE_FILE))) throw new Error(`no session in ${dir} (no session store)`);
  const { db, sqlite } = openSessionDb(dir);
  const meta = new MetaTable(db).get();
  if (!meta) {
    sqlite.close(true);
    throw new Error(`the session store in ${dir} has no session metadata`);
  }
  return new SessionStore(dir, meta.id, db, sqlite, options);
}

/** Records a session with no daemon serving it as stopped (finalized), unless it already is. */
export function markSessionStopped(dir: string): void {
  const store = openSession(dir);
  try {
    if (store.meta().state !== "stopped") {
      store.appendEvents([{ type: "session_state", state: "stopped", finalized: true }]);
      store.setState("stopped", true);
    }
  } finally {
    store.close();
  }
}

/**
 * Every session under the data root, newest first. Sessions of an older layout are listed from a
 * read-only look (they are migrated when resumed); sessions of a newer layout are left out.
 */
export function listSessions(dataRoot: string, options: { now?: () => number } = {}): { dir: string; meta: SessionMeta }[] {
  const root = sessionsRoot(dataRoot);
  if (!existsSync(root)) return [];
  cleanupMigrations(root, (options.now ?? Date.now)());
  const out: { dir: string; meta: SessionMeta }[] = [];
  const dirs = new Set<string>();
  for (const name of readdirSync(root)) {
    // Dot names are migration staging trees, backups and journals; a journal names a session that
    // another process is publishing right now (its dir is briefly gone: its backup is read).
    if (!name.startsWith(".")) dirs.add(join(root, name));
    else if (sessionDirOfJournal(join(root, name))) dirs.add(sessionDirOfJournal(join(root, name))!);
  }
  for (const dir of dirs) {
    try {
      const meta = readMeta(dir);
      if (meta) out.push({ dir, meta });
    } catch (error) {
      if (!(error instanceof LayoutTooNewError)) throw error;
    }
  }
  return out.sort((a, b) => b.meta.createdAt - a.meta.createdAt);
}

function readMeta(dir: string): SessionMeta | null {
  if (existsSync(dir) && detectLayout(dir) === LAYOUT_VERSION) {
    if (!existsSync(join(dir, STORE_FILE))) return null;
    const store = openSession(dir);
    try {
      return store.meta();
    } finally {
      store.close();
    }
  }
  const legacy = openStoreReadOnly(dir);
  if (!legacy) return null;
  try {
    return new MetaTable(drizzle({ client: legacy.sqlite, schema }) as SessionDb).get();
  } finally {
    legacy.sqlite.close(true);
  }
}
