// What must survive a migration, computed the same way from the original and the migrated store: the
// session's identity and metadata, every record (a digest of seq, type, time and body), the operation
// ledger, the attachments, and the conversation the journal folds to.
import type { Database } from "bun:sqlite";
import { foldEvents, type EngineEvent } from "../../../agent/events.ts";
import { isEngineRecordType } from "../../../protocol/record-types.ts";

export interface StoreSummary {
  meta: Record<string, unknown>;
  records: number;
  lastSeq: number;
  recordDigest: string;
  operations: number;
  operationDigest: string;
  attachments: number;
  attachmentDigest: string;
  /** Conversation entries folded from the engine records (a fold that throws fails the summary). */
  entries: number;
}

/**
 * `columnsOf`: the store whose table columns are compared (the original): a newer schema may add columns
 * to the migrated copy, and what must survive is what the original had.
 */
export function summarizeStore(sqlite: Database, columnsOf: Database = sqlite): StoreSummary {
  const columns = (table: string) => (columnsOf.query(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => `"${c.name}"`).join(", ");
  const row = sqlite.query(`SELECT ${columns("session_meta")} FROM session_meta`).get() as Record<string, unknown> | null;
  if (!row) throw new Error("the store has no session metadata");
  // The token key is compared by digest so that a difference report never shows it.
  const meta = { ...row, token_key: new Bun.CryptoHasher("sha256").update(String(row.token_key)).digest("hex") };
  const records = new Bun.CryptoHasher("sha256");
  const events: EngineEvent[] = [];
  let count = 0;
  let lastSeq = 0;
  for (const r of sqlite.query("SELECT seq, type, at, body FROM records ORDER BY seq").iterate() as Iterable<{ seq: number; type: string; at: number; body: string }>) {
    records.update(`${r.seq}\u0000${r.type}\u0000${r.at}\u0000${r.body}\u0000`);
    count += 1;
    lastSeq = r.seq;
    if (!isEngineRecordType(r.type)) continue;
    try {
      events.push(JSON.parse(r.body) as EngineEvent);
    } catch {
      throw new Error(`journal record ${r.seq} is not valid JSON`);
    }
  }
  const ops = new Bun.CryptoHasher("sha256");
  let operations = 0;
  for (const o of sqlite.query(`SELECT ${columns("operations")} FROM operations ORDER BY window_id, operation`).iterate() as Iterable<Record<string, unknown>>) {
    ops.update(`${JSON.stringify(o)}\u0000`);
    operations += 1;
  }
  const atts = new Bun.CryptoHasher("sha256");
  let attachments = 0;
  for (const a of sqlite.query("SELECT id, media_type, data, created_at FROM attachments ORDER BY id").iterate() as Iterable<{ id: string; media_type: string; data: Uint8Array; created_at: number }>) {
    atts.update(`${a.id}\u0000${a.media_type}\u0000${a.created_at}\u0000`).update(a.data);
    attachments += 1;
  }
  return {
    meta,
    records: count,
    lastSeq,
    recordDigest: records.digest("hex"),
    operations,
    operationDigest: ops.digest("hex"),
    attachments,
    attachmentDigest: atts.digest("hex"),
    entries: foldEvents(events).entries.length,
  };
}

/** The first difference between two summaries, in words, or null when they match. */
export function summaryDifference(original: StoreSummary, migrated: StoreSummary): string | null {
  for (const key of Object.keys(original) as (keyof StoreSummary)[]) {
    const a = JSON.stringify(original[key]);
    const b = JSON.stringify(migrated[key]);
    if (a !== b) return `${key}: original ${a.slice(0, 80)}, migrated ${b.slice(0, 80)}`;
  }
  return null;
}
