// The seam between the registries/session supervisor (which change projects and sessions) and fleet
// observation (which journals those changes as FleetEventV1 records). Writers call `touch` AFTER their
// database commit; the fleet reads the current row itself, so a change signal carries only identity.
export type FleetChange =
  | { kind: "project"; id: string }
  | { kind: "session"; id: string };

export class FleetChanges {
  private readonly listeners = new Set<(change: FleetChange) => void>();

  /** Signals that a project or session row was inserted, updated or deleted (committed). */
  touch(change: FleetChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // A failing observer must never fail the write that signalled it.
      }
    }
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: (change: FleetChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
