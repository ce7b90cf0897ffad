// The record hub: everything a client must see passes through here. Bodies are batched per tick,
// consecutive deltas of one part are coalesced, the batch is committed to the journal (one transaction),
// and only then handed to live subscribers and to the daemon's own observers.
import type { Journal, RecordBody, StoredRecord } from "./store/journal.ts";

/** A committed record ready for the wire: its SyncRecordV1 JSON text and size. */
export interface WireRecord {
  seq: number;
  type: string;
  /** The SyncRecordV1 JSON. */
  json: string;
  /** The body JSON (the legacy stream sends it as is). */
  body: string;
  bytes: number;
}

export interface LiveSubscriber {
  deliver(records: readonly WireRecord[]): void;
  heartbeat(): void;
  /** The daemon is shutting down: end the stream. */
  close(): void;
}

/**
 * A queue holding only deltas is committed at most once per this many ms (a display frame at 60 Hz): a
 * provider read is an event-loop turn, and a provider that sends a token per packet made a transaction
 * (an fsync, 1-10 ms on a busy disk) per token. Any other record is committed in the turn it was published.
 */
export const DELTA_COMMIT_INTERVAL_MS = 16;

export function toWire(r: StoredRecord): WireRecord {
  // The body is a JSON object with at least `type`: splice the header in front of its first field.
  const json = `{"version":1,"seq":"${r.seq}","at":${r.at},${r.body.slice(1)}`;
  return { seq: r.seq, type: r.type, json, body: r.body, bytes: Buffer.byteLength(json) };
}

export class RecordHub {
  private pending: RecordBody[] = [];
  private scheduled = false;
  /** The timer of a delta-only queue waiting for DELTA_COMMIT_INTERVAL_MS since the last commit. */
  private deltaTimer: ReturnType<typeof setTimeout> | null = null;
  /** When the last commit started (performance.now()). */
  private lastCommitAt = -Infinity;
  private readonly subscribers = new Set<LiveSubscriber>();
  private readonly observers: ((records: readonly StoredRecord[]) => void)[] = [];
  private heartbeatTimer: ReturnType<typeof setInterval> | null = null;
  private committed: number;
  /** Frames already encoded for the newest batches: live subscribers at the same position share them. */
  private frames = new Map<string, string>();

  constructor(
    readonly journal: Journal,
    private readonly now: () => number,
    heartbeatMs: number,
  ) {
    this.committed = journal.lastSeq();
    if (heartbeatMs > 0) {
      this.heartbeatTimer = setInterval(() => {
        for (const s of this.subscribers) s.heartbeat();
      }, heartbeatMs);
      this.heartbeatTimer.unref?.();
    }
  }

  /** The position of the newest committed record. */
  get lastSeq(): number {
    return this.committed;
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /**
   * Queues a record; it is committed and delivered once the current event-loop turn's work is done (or
   * by `flush`). Not at the end of the microtask: the engine hands each streamed delta over in its own
   * microtask (async generators), so a microtask flush made a transaction (an fsync) per delta. A delta
   * of the same part as the last queued one is merged into it at once, so the queue stays as short as
   * the records it will commit. A queue of deltas alone waits until DELTA_COMMIT_INTERVAL_MS have passed
   * since the last commit began (the first delta after a pause is not delayed).
   */
  publish(body: RecordBody): void {
    const last = this.pending[this.pending.length - 1];
    if (last && mergeable(last, body)) this.pending[this.pending.length - 1] = { ...last, delta: String(last.delta) + String(body.delta) };
    else this.pending.push(body);
    if (this.scheduled) return;
    if (body.type === "part_delta" && this.pending.every((b) => b.type === "part_delta")) {
      const wait = this.lastCommitAt + DELTA_COMMIT_INTERVAL_MS - performance.now();
      if (wait > 0) {
        this.deltaTimer ??= setTimeout(() => {
          this.deltaTimer = null;
          this.flush();
        }, wait);
        return;
      }
    }
    this.scheduled = true;
    setImmediate(() => this.scheduled && this.flush());
  }

  /**
   * Decides about a failed write (storage-fault.ts): true keeps what could not be committed queued (the
   * handler retries), false lets the error through.
   */
  onWriteError: ((error: unknown) => boolean) | null = null;

  /** Records queued and not committed yet (while storage fails, until it recovers). */
  get queued(): number {
    return this.pending.length;
  }

  /** Commits every queued record now, then delivers them. Returns what was committed. */
  flush(): StoredRecord[] {
    this.scheduled = false;
    if (this.deltaTimer) clearTimeout(this.deltaTimer);
    this.deltaTimer = null;
    if (this.pending.length === 0) return [];
    this.lastCommitAt = performance.now();
    const batch = coalesceDeltas(this.pending);
    this.pending = [];
    let stored: StoredRecord[];
    try {
      stored = this.journal.append(batch, this.now());
    } catch (error) {
      // Nothing of the batch was committed (one transaction): it stays queued, in order, for the retry.
      this.pending = batch.concat(this.pending);
      if (this.onWriteError?.(error)) return [];
      throw error;
    }
    this.committed = stored[stored.length - 1]!.seq;
    if (this.frames.size > 64) this.frames.clear();
    for (const observe of this.observers) {
      try {
        observe(stored);
      } catch (error) {
        // An observer's own write (the operation ledger) failing for lack of space must not lose the
        // delivery of records already committed.
        if (!this.onWriteError?.(error)) throw error;
      }
    }
    if (this.subscribers.size > 0) {
      const wire = stored.map(toWire);
      for (const s of [...this.subscribers]) s.deliver(wire);
    }
    return stored;
  }

  /** The encoded SSE frame for records first..last, built once however many subscribers send it. */
  frame(first: number, last: number, build: () => string): string {
    const key = `${first}:${last}`;
    let text = this.frames.get(key);
    if (text === undefined) {
      text = build();
      this.frames.set(key, text);
    }
    return text;
  }

  /** Called with every committed batch, before subscribers see it. */
  observe(fn: (records: readonly StoredRecord[]) => void): void {
    this.observers.push(fn);
  }

  add(s: LiveSubscriber): void {
    this.subscribers.add(s);
  }

  remove(s: LiveSubscriber): void {
    this.subscribers.delete(s);
  }

  /** Ends every live stream (shutdown); records committed so far have been delivered. */
  endStreams(): void {
    for (const s of [...this.subscribers]) s.close();
    this.subscribers.clear();
  }

  close(): void {
    this.flush();
    this.endStreams();
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }
}

/** Merges runs of `part_delta` for the same part into one record (the final part state is its own record). */
export function coalesceDeltas(bodies: RecordBody[]): RecordBody[] {
  const out: RecordBody[] = [];
  for (const b of bodies) {
    const prev = out[out.length - 1];
    if (prev && mergeable(prev, b)) {
      out[out.length - 1] = { ...prev, delta: String(prev.delta) + String(b.delta) };
      continue;
    }
    out.push(b);
  }
  return out;
}

function mergeable(prev: RecordBody, next: RecordBody): boolean {
  return next.type === "part_delta" && prev.type === "part_delta" && prev.part_id === next.part_id && prev.message_id === next.message_id;
}
