// Opens a stopped session's store read-only, through the daemon store's own classes (journal, metadata),
// for the gateway's stopped-history reads. Nothing is migrated or written (a store of an older layout is
// read as it is and marked legacy); the connection is closed again before the request ends.
import type { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { Journal } from "../../daemon/store/journal.ts";
import { MetaTable } from "../../daemon/store/meta.ts";
import { LayoutTooNewError, openStoreReadOnly, type SessionMeta, type StoredRecord } from "../../daemon/store/index.ts";
import type { SessionDb } from "../../daemon/store/open.ts";
import * as schema from "../../daemon/store/schema.ts";
import { FleetError } from "./fleet-error.ts";

export interface StoreView {
  meta: SessionMeta;
  records(): Iterable<StoredRecord>;
  /** The store is in an older layout: its history is projected from the old format. */
  legacy: boolean;
}

export function readStore<T>(sessionDir: string, read: (view: StoreView) => T): T {
  let opened: ReturnType<typeof openStoreReadOnly>;
  try {
    opened = openStoreReadOnly(sessionDir);
  } catch (error) {
    // The message names the dir on the gateway's disk: the client gets the reason, not the path.
    if (error instanceof LayoutTooNewError) throw new FleetError("history_unavailable", "the session was written by a newer agent than the gateway's; update agent on the gateway host");
    throw new FleetError("history_unavailable", "the session's history store cannot be opened");
  }
  if (!opened) throw new FleetError("history_unavailable", "the session has no history store");
  const sqlite: Database = opened.sqlite;
  try {
    let meta: SessionMeta | null;
    let journal: Journal;
    try {
      sqlite.exec("PRAGMA busy_timeout = 5000");
      meta = new MetaTable(drizzle({ client: sqlite, schema }) as SessionDb).get();
      journal = new Journal(sqlite);
    } catch {
      throw new FleetError("history_corrupt", "the session's history store cannot be read");
    }
    if (!meta) throw new FleetError("history_corrupt", "the session's history store has no session metadata");
    return read({ meta, records: () => journal.all(), legacy: opened.legacy });
  } finally {
    sqlite.close();
  }
}
