// The seam between the registries/session supervisor (which change projects and sessions) and fleet
// observation (which journals those changes as FleetEventV1 records). Writers await `touch` AFTER their
// database commit; the fleet reads the current row itself, so a change signal carries only identity, and
// awaiting it means the row was announced before the writer changes it again (no state is skipped).
export type FleetChange =
  | { kind: "project"; id: string }
  | { kind: "session"; id: string };

export class FleetChanges {
  private readonly listeners = new Set<(change: FleetChange) => void | Promise<void>>();

  /**
   * Signals that a project or session row was inserted, updated or deleted (committed); resolves once
   * every listener has handled it. Never rejects: a failing observer must never fail the write.
   */
  async touch(change: FleetChange): Promise<void> {
    await Promise.allSettled([...this.listeners].map(async (listener) => listener(change)));
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: (change: FleetChange) => void | Promise<void>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
