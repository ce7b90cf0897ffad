// The fleet's bounds (client-protocol.md, Limits), in one place. Tests pass smaller values; production
// uses these.

export interface FleetLimits {
  /** Project plus session entries of one catalog page, and its JSON size. */
  catalogPageEntries: number;
  catalogPageBytes: number;
  /** Catalog snapshots retained, their serialized bytes together, and each one's lifetime. */
  snapshotsRetained: number;
  snapshotStoreBytes: number;
  snapshotTtlMs: number;
  /** Fleet event journal: records, bytes, age; whichever removes records first. */
  journalRecords: number;
  journalBytes: number;
  journalAgeMs: number;
  heartbeatMs: number;
  /** Gateway observer: cadence, requests in flight, per-request timeout, freshness. */
  observeEveryMs: number;
  observeConcurrency: number;
  observeTimeoutMs: number;
  freshnessMs: number;
  /** Stopped history through the gateway. */
  historyPageItems: number;
  historyPageBytes: number;
  checkpointsRetained: number;
  checkpointTtlMs: number;
  historySpoolBytes: number;
  attachmentResponseBytes: number;
}

const MiB = 1024 * 1024;

export const FLEET_LIMITS: FleetLimits = {
  catalogPageEntries: 200,
  catalogPageBytes: 1 * MiB,
  snapshotsRetained: 8,
  snapshotStoreBytes: 32 * MiB,
  snapshotTtlMs: 10 * 60_000,
  journalRecords: 8192,
  journalBytes: 32 * MiB,
  journalAgeMs: 5 * 60_000,
  heartbeatMs: 15_000,
  observeEveryMs: 5_000,
  observeConcurrency: 8,
  observeTimeoutMs: 3_000,
  freshnessMs: 15_000,
  historyPageItems: 256,
  historyPageBytes: 2 * MiB,
  checkpointsRetained: 8,
  checkpointTtlMs: 10 * 60_000,
  historySpoolBytes: 1024 * MiB,
  attachmentResponseBytes: 8 * MiB,
};
