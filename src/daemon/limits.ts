// The protocol's limits (client-protocol.md, Limits) and the daemon's own bounds, in one place.
// Tests pass smaller values through DaemonOptions.limits; production uses these.

export interface DaemonLimits {
  /** Records and bytes of one SSE frame. */
  frameRecords: number;
  frameBytes: number;
  /** A live subscriber's unsent backlog; beyond it the stream is reset (reset_required). */
  subscriberBufferBytes: number;
  subscriberBufferRecords: number;
  /** Records reachable by replay: an older cursor is cursor_too_old. */
  replayRecords: number;
  heartbeatMs: number;
  operationWindowMs: number;
  ledgerEntries: number;
  ledgerBytes: number;
  historyPageItems: number;
  historyPageBytes: number;
  checkpointTtlMs: number;
  checkpointsRetained: number;
  historySpoolBytes: number;
  attachmentResponseBytes: number;
  /** Largest raw artifact served in zstd mode. */
  feedbackZstdSourceBytes: number;
  /** Bytes of an artifact returned in snapshot mode. */
  feedbackSnapshotBytes: number;
}

const MiB = 1024 * 1024;

export const DAEMON_LIMITS: DaemonLimits = {
  frameRecords: 256,
  frameBytes: 2 * MiB,
  subscriberBufferBytes: 16 * MiB,
  subscriberBufferRecords: 65_536,
  replayRecords: 10_000_000,
  heartbeatMs: 15_000,
  operationWindowMs: 10 * 60_000,
  ledgerEntries: 4096,
  ledgerBytes: 32 * MiB,
  historyPageItems: 256,
  historyPageBytes: 2 * MiB,
  checkpointTtlMs: 10 * 60_000,
  checkpointsRetained: 8,
  historySpoolBytes: 1024 * MiB,
  attachmentResponseBytes: 8 * MiB,
  feedbackZstdSourceBytes: 256 * MiB,
  feedbackSnapshotBytes: 1 * MiB,
};
