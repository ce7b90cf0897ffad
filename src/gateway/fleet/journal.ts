// The fleet event journal: FleetEventV1 records in the database's `fleet_events` table, shared by every
// replica of one database (one fleet epoch, stored in gateway_settings), with opaque cursors naming a row's
// seq. Each process keeps a mirror of the retained rows: it reads the rows any replica appended (woken by
// its own appends, and on PostgreSQL by LISTEN, fleet/wake.ts) and hands each to its subscribers (SSE
// streams) in seq order. Appends run in db.tx, which on PostgreSQL holds the gateway's transaction
// advisory lock: seqs are taken and committed one append at a time, so commit order is seq order and a
// reader never sees seq 8 before 7 commits. Retention (records, bytes, age; whichever removes records
// first) is a rule over the rows themselves, so every replica computes the same floor; removed rows are
// deleted by the next append, except the newest, which stays as the anchor of the sequence. A cursor
// below the floor is 410 cursor_too_old.
import { asc, eq, gte, lte } from "drizzle-orm";
import { TokenError, type TokenSigner } from "../../protocol/tokens.ts";
import type { FleetEvent, FleetProject, FleetSession } from "../../protocol/fleet-event.ts";
import { isoAt, type Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/handle.ts";
import { FleetError } from "./fleet-error.ts";
import type { FleetLimits } from "./limits.ts";

type Body<E> = E extends FleetEvent ? Omit<E, "version" | "fleet_epoch" | "cursor" | "at"> : never;
export type FleetEventBody = Body<FleetEvent>;

export interface JournalEntry {
  seq: number;
  /** The seq of the entry before this one as this process read them: a stream positioned below it missed events. */
  prev: number;
  at: number;
  cursor: string;
  /** The event's JSON text, sent as is. */
  text: string;
  bytes: number;
}

/** The last journaled state of a row ("p:" / "s:" + id): what a new announcement is compared with. */
export type JournaledView = { kind: "project"; project: FleetProject } | { kind: "session"; session: FleetSession } | { kind: "removed" };

interface Row {
  seq: number;
  at: number;
  body: string;
  bytes: number;
}

export class FleetJournal {
  /** Retained entries, ascending seq (seqs may skip a number: a rolled-back append). */
  private entries: JournalEntry[] = [];
  private start = 0;
  private bytes = 0;
  /** The newest seq read from the table. */
  private head = 0;
  /** Seq of the newest removed record: events after it are all retained. */
  private floor = 0;
  /** Rows up to this seq are known to be deleted from the table. */
  private deletedThrough = 0;
  private readonly views = new Map<string, JournaledView>();
  private readonly listeners = new Set<(entry: JournalEntry) => void>();
  private reading: Promise<void> | null = null;
  private readAgain = false;

  constructor(
    readonly epoch: string,
    private readonly db: GatewayDb,
    private readonly signer: TokenSigner,
    private readonly clock: Clock,
    private readonly limits: FleetLimits,
  ) {}

  get position(): number {
    return this.head;
  }

  cursorAt(seq: number): string {
    return this.signer.sign("cur", { p: String(seq) });
  }

  /** The last journaled state of a row, by any replica ("p:" / "s:" + id). */
  view(key: string): JournaledView | undefined {
    return this.views.get(key);
  }

  /** Every row's last journaled state this process has read. */
  knownViews(): IterableIterator<[string, JournaledView]> {
    return this.views.entries();
  }

  /** Oldest retained event's time, or null when nothing is retained. */
  get oldestAt(): number | null {
    return this.start < this.entries.length ? this.entries[this.start]!.at : null;
  }

  /**
   * Appends the event `compose` returns (null: nothing to announce), in one transaction after reading
   * every row appended before it, so `compose` compares with the journal as it is. Rows that retention
   * removed are deleted here. Resolves to whether an event was appended.
   */
  async append(compose: (tx: GatewayDb) => Promise<FleetEventBody | null>): Promise<boolean> {
    const t = this.db.t.fleetEvents;
    const row = await this.db.tx(async (tx): Promise<Row | null> => {
      await this.read(tx);
      const body = await compose(tx);
      if (!body) return null;
      const through = Math.min(this.floor, this.head);
      if (through > this.deletedThrough) await tx.delete(t).where(lte(t.seq, through));
      const now = this.clock.now();
      const [inserted] = await tx.insert(t).values({ at: now, body: "", bytes: 0 }).returning({ seq: t.seq });
      const seq = Number(inserted!.seq);
      const text = JSON.stringify({ version: 1, fleet_epoch: this.epoch, cursor: this.cursorAt(seq), at: isoAt(now), ...body });
      const bytes = Buffer.byteLength(text);
      await tx.update(t).set({ body: text, bytes }).where(eq(t.seq, seq));
      this.deletedThrough = Math.max(this.deletedThrough, through);
      return { seq, at: now, body: text, bytes };
    });
    if (!row) return false;
    this.apply(this.head, [row], true);
    return true;
  }

  /**
   * Reads what other replicas appended since the last read (PostgreSQL wakes this on NOTIFY). Calls that
   * arrive while a read runs are folded into one more read after it.
   */
  catchUp(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      try {
        do {
          this.readAgain = false;
          await this.read(this.db);
        } while (this.readAgain);
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }

  /**
   * The position a client cursor stands for. Forged or malformed: 400 invalid_cursor. Authentic but of
   * another fleet epoch (another gateway database): 410 reset_required. Older than the journal: 410
   * cursor_too_old. A cursor from another replica that this one has not read up to yet is read first.
   */
  async resolve(cursor: string): Promise<number> {
    let seq: number;
    try {
      seq = Number(this.signer.verify("cur", cursor).p);
    } catch (error) {
      if (error instanceof TokenError && error.problem === "wrong_epoch") throw new FleetError("reset_required", "the cursor belongs to another fleet epoch; fetch a new catalog");
      throw new FleetError("invalid_cursor", "the cursor is not one this gateway issued; fetch a new catalog");
    }
    if (!Number.isSafeInteger(seq) || seq < 0) throw new FleetError("invalid_cursor", "the cursor is not one this gateway issued; fetch a new catalog");
    if (seq > this.head) await this.catchUp();
    if (seq > this.head) throw new FleetError("invalid_cursor", "the cursor is not one this gateway issued; fetch a new catalog");
    this.trim(this.clock.now());
    if (seq < this.floor) throw new FleetError("cursor_too_old", "the cursor is older than the retained fleet journal; fetch a new catalog");
    return seq;
  }

  /** Retained entries after a position (resolve() it first). */
  after(seq: number): JournalEntry[] {
    let lo = this.start;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.entries[mid]!.seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return this.entries.slice(lo);
  }

  subscribe(listener: (entry: JournalEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get retained(): { records: number; bytes: number } {
    return { records: this.entries.length - this.start, bytes: this.bytes };
  }

  /** Reads the rows after the newest one read, with that row as the anchor: its absence means rows were deleted past it. */
  private async read(db: GatewayDb): Promise<void> {
    const t = db.t.fleetEvents;
    const from = this.head;
    const rows = await db.select().from(t).where(gte(t.seq, from)).orderBy(asc(t.seq));
    this.apply(from, rows.map((r) => ({ seq: Number(r.seq), at: Number(r.at), body: r.body, bytes: Number(r.bytes) })), false);
  }

  /**
   * Adds rows read from (or just written to) the table. When the anchor row `from` is gone, retention
   * deleted rows this process never read: everything up to the first row read counts as removed, and a
   * stream positioned before it gets the first new entry with a `prev` it has not seen (it resets).
   */
  private apply(from: number, rows: Row[], own: boolean): void {
    if (!own && from > 0 && from === this.head && rows[0]?.seq !== from && rows.length > 0) {
      const lost = rows[0]!.seq - 1;
      this.floor = Math.max(this.floor, lost);
      this.deletedThrough = Math.max(this.deletedThrough, lost);
      this.head = lost;
    }
    if (from === 0 && this.head === 0 && rows.length > 0) {
      // The first read: whatever came before the oldest row is gone.
      this.floor = this.deletedThrough = rows[0]!.seq - 1;
    }
    for (const row of rows) {
      if (row.seq <= this.head) continue;
      const entry: JournalEntry = { seq: row.seq, prev: this.head, at: row.at, cursor: "", text: row.body, bytes: row.bytes };
      const event = JSON.parse(row.body) as FleetEvent;
      entry.cursor = event.cursor;
      this.remember(event);
      this.head = row.seq;
      this.entries.push(entry);
      this.bytes += entry.bytes;
      for (const listener of this.listeners) listener(entry);
    }
    this.trim(this.clock.now());
  }

  private remember(event: FleetEvent): void {
    if (event.type === "project_upserted") this.views.set(`p:${event.project.project_id}`, { kind: "project", project: event.project });
    else if (event.type === "project_removed") this.views.set(`p:${event.project_id}`, { kind: "removed" });
    else if (event.type === "session_upserted") this.views.set(`s:${event.session.session_id}`, { kind: "session", session: event.session });
    else if (event.type === "session_removed") this.views.set(`s:${event.session_id}`, { kind: "removed" });
  }

  private trim(now: number): void {
    const { journalRecords, journalBytes, journalAgeMs } = this.limits;
    while (this.start < this.entries.length) {
      const first = this.entries[this.start]!;
      if (this.entries.length - this.start <= journalRecords && this.bytes <= journalBytes && now - first.at < journalAgeMs) break;
      this.bytes -= first.bytes;
      this.floor = Math.max(this.floor, first.seq);
      this.start++;
    }
    // Compact now and then instead of shifting on every removal.
    if (this.start > 1024 && this.start * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.start);
      this.start = 0;
    }
  }
}
