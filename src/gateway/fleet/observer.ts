// The gateway observer (client-protocol.md, Fleet routes rule 4): every round it asks each running
// session's daemon this host supervises (its daemon listens on this host's loopback) for GET /sync/summary, at most N requests at a time, each under a timeout, and keeps
// the last good answer with the time it was observed. A failed request keeps the old observation, which
// then ages into `stale`. A changed summary is reported so the fleet can emit session_upserted.
import { Value } from "@sinclair/typebox/value";
import { SyncStatusRecord, type SyncStatus } from "../../protocol/sync-shapes.ts";
import type { Clock } from "../../util/clock.ts";
import { daemonTarget } from "./daemon-target.ts";
import type { FleetLimits } from "./limits.ts";
import type { FleetRows, SessionRow } from "./rows.ts";

export interface Observation {
  summary: SyncStatus;
  observedAt: number;
}

/** A summary is a few hundred bytes; anything far larger is not one. */
const MAX_SUMMARY_BYTES = 64 * 1024;

export class FleetObserver {
  private readonly observations = new Map<string, Observation>();
  private current: Promise<void> | null = null;

  constructor(
    private readonly rows: FleetRows,
    private readonly clock: Clock,
    private readonly limits: FleetLimits,
    private readonly changed: (sessionId: string) => void,
  ) {}

  observation(sessionId: string): Observation | undefined {
    return this.observations.get(sessionId);
  }

  forget(sessionId: string): void {
    this.observations.delete(sessionId);
  }

  /** Runs one round over the running sessions this host supervises; a tick while a round is still going joins that round. */
  round(): Promise<void> {
    this.current ??= this.run().finally(() => {
      this.current = null;
    });
    return this.current;
  }

  private async run(): Promise<void> {
    const rows = await this.rows.running(true);
    let next = 0;
    const worker = async () => {
      while (next < rows.length) await this.observe(rows[next++]!);
    };
    await Promise.all(Array.from({ length: Math.min(this.limits.observeConcurrency, rows.length) }, worker));
  }

  private async observe(row: SessionRow): Promise<void> {
    const target = daemonTarget(row);
    if (!target) return;
    let body: unknown;
    try {
      const res = await fetch(`${target.url}/sync/summary`, {
        headers: { Authorization: `Bearer ${target.token}` },
        signal: AbortSignal.timeout(this.limits.observeTimeoutMs),
        redirect: "manual",
      });
      const text = res.ok ? await res.text() : (await res.body?.cancel(), "");
      if (!res.ok || text.length > MAX_SUMMARY_BYTES) return;
      body = JSON.parse(text);
    } catch {
      return; // unreachable, timed out or not JSON: the old observation ages into stale
    }
    // Fields this version does not know pass the check (a newer daemon may send them; no server may
    // tighten the shared schema: test/architecture/shared-schemas.test.ts) and are not kept.
    if (!Value.Check(SyncStatusRecord, body)) return;
    // Only the record's own fields are kept: the fleet row must not carry whatever else a daemon sends.
    const { version, daemon_epoch, cursor, busy, attention, history_checkpoint, history_total_items, plan } = body;
    const summary: SyncStatus = { version, daemon_epoch, cursor, busy, attention, history_checkpoint, history_total_items, ...(plan ? { plan: { done: plan.done, total: plan.total, current: plan.current, text: plan.text } } : {}) };
    const before = this.observations.get(row.id);
    this.observations.set(row.id, { summary, observedAt: this.clock.now() });
    if (!before || JSON.stringify(before.summary) !== JSON.stringify(summary)) this.changed(row.id);
  }
}
