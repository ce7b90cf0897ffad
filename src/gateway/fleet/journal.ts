// The fleet event journal: FleetEventV1 records of this gateway process (one fleet epoch), in order, with
// opaque cursors. Bounded by records, bytes and age (whichever removes records first); a cursor older
// than what is retained is 410 cursor_too_old. Subscribers (SSE streams) get each record as it is added.
import { TokenError, type TokenSigner } from "../../protocol/tokens.ts";
import type { FleetEvent } from "../../protocol/fleet-event.ts";
import { isoAt, type Clock } from "../../util/clock.ts";
import { FleetError } from "./fleet-error.ts";
import type { FleetLimits } from "./limits.ts";

type Body<E> = E extends FleetEvent ? Omit<E, "version" | "fleet_epoch" | "cursor" | "at"> : never;
export type FleetEventBody = Body<FleetEvent>;

export interface JournalEntry {
  seq: number;
  at: number;
  cursor: string;
  /** The event's JSON text, sent as is. */
  text: string;
  bytes: number;
}

export class FleetJournal {
  private entries: JournalEntry[] = [];
  private start = 0;
  private bytes = 0;
  private head = 0;
  /** Position of the newest removed record: events after it are all retained. */
  private floor = 0;
  private readonly listeners = new Set<(entry: JournalEntry) => void>();

  constructor(
    readonly epoch: string,
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

  /** Builds the event's header (epoch, cursor, time), retains it and hands it to every subscriber. */
  append(body: FleetEventBody): JournalEntry {
    const now = this.clock.now();
    const seq = this.head + 1;
    const cursor = this.cursorAt(seq);
    const text = JSON.stringify({ version: 1, fleet_epoch: this.epoch, cursor, at: isoAt(now), ...body });
    const entry: JournalEntry = { seq, at: now, cursor, text, bytes: Buffer.byteLength(text) };
    this.head = seq;
    this.entries.push(entry);
    this.bytes += entry.bytes;
    this.trim(now);
    for (const listener of this.listeners) listener(entry);
    return entry;
  }

  /**
   * The position a client cursor stands for. Forged or malformed: 400 invalid_cursor. Authentic but of
   * another fleet epoch (an earlier gateway process): 410 reset_required. Older than the journal: 410
   * cursor_too_old.
   */
  resolve(cursor: string): number {
    let seq: number;
    try {
      seq = Number(this.signer.verify("cur", cursor).p);
    } catch (error) {
      if (error instanceof TokenError && error.problem === "wrong_epoch") throw new FleetError("reset_required", "the cursor belongs to an earlier fleet epoch; fetch a new catalog");
      throw new FleetError("invalid_cursor", "the cursor is not one this gateway issued; fetch a new catalog");
    }
    if (!Number.isSafeInteger(seq) || seq < 0 || seq > this.head) throw new FleetError("invalid_cursor", "the cursor is not one this gateway issued; fetch a new catalog");
    this.trim(this.clock.now());
    if (seq < this.floor) throw new FleetError("cursor_too_old", "the cursor is older than the retained fleet journal; fetch a new catalog");
    return seq;
  }

  /** Retained entries after a position (resolve() it first). */
  after(seq: number): JournalEntry[] {
    // Retained positions are contiguous: entries[start] is floor + 1.
    return this.entries.slice(this.start + Math.max(0, seq - this.floor));
  }

  subscribe(listener: (entry: JournalEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get retained(): { records: number; bytes: number } {
    return { records: this.entries.length - this.start, bytes: this.bytes };
  }

  private trim(now: number): void {
    const { journalRecords, journalBytes, journalAgeMs } = this.limits;
    while (this.start < this.entries.length) {
      const first = this.entries[this.start]!;
      if (this.entries.length - this.start <= journalRecords && this.bytes <= journalBytes && now - first.at < journalAgeMs) break;
      this.bytes -= first.bytes;
      this.floor = first.seq;
      this.start++;
    }
    // Compact now and then instead of shifting on every removal.
    if (this.start > 1024 && this.start * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.start);
      this.start = 0;
    }
  }
}
