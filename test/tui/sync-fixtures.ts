// Sync records and snapshots as a daemon would send them, for view tests that feed the fold directly.
import type { EngineEvent } from "../../src/agent/events.ts";
import type { SyncRecord } from "../../src/protocol/sync-record.ts";
import type { SyncSnapshotBody } from "../../src/protocol/sync-shapes.ts";

/** Numbers events as records, continuing from the last number this sequence gave. */
export function recordSequence(): { records(events: (EngineEvent | Record<string, unknown>)[]): SyncRecord[]; readonly seq: number } {
  let seq = 0;
  return {
    records: (events) => events.map((e) => ({ version: 1, seq: String(++seq), at: 0, ...e }) as unknown as SyncRecord),
    get seq() {
      return seq;
    },
  };
}

/** A running, idle session's snapshot at `seq`. */
export function testSnapshot(seq: number, over: Partial<SyncSnapshotBody> = {}): SyncSnapshotBody {
  return {
    version: 1,
    session_id: "ses_x",
    daemon_epoch: "e1",
    cursor: "c",
    origin_cursor: "o",
    seq: String(seq),
    catalog_revision: "1",
    features: [],
    session_state: "running",
    turn: { busy: false, turn_id: null, queue: [], pending_interrogatives: [] },
    active: null,
    actions: { prompt: true, dequeue: true, interrogative_response: true, interrupt: true, history: true },
    history_checkpoint: null,
    operation_window: null,
    ...over,
  };
}
