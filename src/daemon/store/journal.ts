// The ordered record journal. Records are appended in one transaction per batch (so a batch costs one
// fsync), and read back in order. A body is kept as JSON text: replay sends it without re-encoding.
import type { Database, Statement } from "bun:sqlite";

/** A record before it has a position: an engine event or a daemon record; `type` names the variant. */
export interface RecordBody {
  type: string;
  [field: string]: unknown;
}

export interface StoredRecord {
  seq: number;
  at: number;
  type: string;
  /** The body as JSON text (an object). */
  body: string;
}

export class Journal {
  private readonly insert: Statement;
  private readonly range: Statement;
  private readonly last: Statement;
  private readonly first: Statement;
  private readonly bump: Statement;

  constructor(private readonly sqlite: Database) {
    this.insert = sqlite.prepare("INSERT INTO records (seq, type, at, body) VALUES (?1, ?2, ?3, ?4)");
    this.range = sqlite.prepare("SELECT seq, at, type, body FROM records WHERE seq > ?1 ORDER BY seq LIMIT ?2");
    this.last = sqlite.prepare("SELECT coalesce(max(seq), 0) AS n FROM records");
    this.first = sqlite.prepare("SELECT coalesce(min(seq), 0) AS n FROM records");
    this.bump = sqlite.prepare("UPDATE session_meta SET source_revision = source_revision + 1, updated_at = ?1");
  }

  /** Appends the bodies in order, durably (one transaction), and returns them with their positions. */
  append(bodies: readonly RecordBody[], at: number): StoredRecord[] {
    if (bodies.length === 0) return [];
    const out: StoredRecord[] = [];
    this.sqlite.transaction(() => {
      let seq = this.lastSeq();
      for (const body of bodies) {
        seq += 1;
        const json = JSON.stringify(body);
        this.insert.run(seq, body.type, at, json);
        out.push({ seq, at, type: body.type, body: json });
      }
      this.bump.run(at);
    })();
    return out;
  }

  /** Records after `afterSeq`, in order, at most `limit`. */
  read(afterSeq: number, limit: number): StoredRecord[] {
    return this.range.all(afterSeq, limit) as StoredRecord[];
  }

  /** Every record, in order, in pages (a long session need not fit one array of rows). */
  *all(pageSize = 4096): Generator<StoredRecord> {
    let after = 0;
    for (;;) {
      const page = this.read(after, pageSize);
      yield* page;
      if (page.length < pageSize) return;
      after = page[page.length - 1]!.seq;
    }
  }

  /** The newest record of a type, if any. */
  lastOfType(type: string): StoredRecord | null {
    return (this.sqlite.query("SELECT seq, at, type, body FROM records WHERE type = ?1 ORDER BY seq DESC LIMIT 1").get(type) as StoredRecord | null) ?? null;
  }

  /** The position of the newest record (0 when empty). */
  lastSeq(): number {
    return (this.last.get() as { n: number }).n;
  }

  /** The position of the oldest record kept (0 when empty). */
  firstSeq(): number {
    return (this.first.get() as { n: number }).n;
  }
}
