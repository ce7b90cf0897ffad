// Opens a stopped session's store read-only, through the daemon store's own classes (journal, metadata),
// for the gateway's stopped-history reads. Nothing is migrated or written; the connection is closed again
// before the request ends.
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { Journal } from "../../daemon/store/journal.ts";
import { MetaTable } from "../../daemon/store/meta.ts";
import { STORE_FILE, type SessionMeta, type StoredRecord } from "../../daemon/store/index.ts";
import type { SessionDb } from "../../daemon/store/open.ts";
import * as schema from "../../daemon/store/schema.ts";
import { FleetError } from "./fleet-error.ts";

export interface StoreView {
  meta: SessionMeta;
  records(): Iterable<StoredRecord>;
}

export function readStore<T>(sessionDir: string, read: (view: StoreView) => T): T {
  const file = join(sessionDir, STORE_FILE);
  if (!existsSync(file)) throw new FleetError("history_unavailable", "the session has no history store");
  let sqlite: Database;
  try {
    sqlite = new Database(file, { readonly: true, strict: true });
  } catch {
    throw new FleetError("history_unavailable", "the session's history store cannot be opened");
  }
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
    return read({ meta, records: () => journal.all() });
  } finally {
    sqlite.close();
  }
}
