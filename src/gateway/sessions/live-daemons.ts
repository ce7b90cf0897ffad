// The daemons this gateway holds, by session: what the proxy forwards to (port and daemon token) and what
// is watched for an exit. A daemon this gateway spawned is awaited; a re-adopted one (not our child) is
// polled. After close() no exit is acted on and no starting daemon is taken on (the daemons keep running;
// the next gateway start re-adopts them).
import { join } from "node:path";
import { CREDENTIAL_FILE, loadCredential } from "../../daemon/credential.ts";
import { isSameProcess } from "./process-identity.ts";
import type { SessionRow } from "./registry.ts";
import type { DaemonProcess } from "./terminate.ts";

/** A running daemon as the proxy and the watchers know it. */
export interface LiveDaemon extends DaemonProcess {
  sessionId: string;
  generationId: string | null;
  port: number;
  token: string;
  /** Polls a re-adopted daemon (not our child) for its exit. */
  poll?: ReturnType<typeof setInterval>;
}

/** How often a re-adopted daemon (whose exit we cannot wait for) is checked. */
const ADOPTED_POLL_MS = 1000;

export class LiveDaemons {
  private readonly bySession = new Map<string, LiveDaemon>();
  private isClosed = false;

  /**
   * `unrecorded` learns of an exit whose recording failed (the store could not be written: a database
   * outage, a host agent with no front reachable); the session is settled by its next health check or
   * reconciliation. Unhandled, such a failure would end the whole process.
   */
  constructor(private readonly unrecorded: (sessionId: string, error: unknown) => void) {}

  /** Whether the gateway stopped watching (it is shutting down). */
  get closed(): boolean {
    return this.isClosed;
  }

  get(sessionId: string): LiveDaemon | undefined {
    return this.bySession.get(sessionId);
  }

  add(daemon: LiveDaemon): void {
    this.bySession.set(daemon.sessionId, daemon);
  }

  /** No longer the session's daemon: not proxied to, not watched. */
  forget(sessionId: string): void {
    const d = this.bySession.get(sessionId);
    if (d?.poll) clearInterval(d.poll);
    this.bySession.delete(sessionId);
  }

  /** Stops watching (daemons keep running; the next gateway start re-adopts them). */
  close(): void {
    this.isClosed = true;
    for (const d of this.bySession.values()) if (d.poll) clearInterval(d.poll);
  }

  /**
   * Calls `onGone` when the daemon exits (`exited`, else polled by process identity) while it is still its
   * session's daemon and the gateway is not shutting down: an exit the gateway asked for is not one.
   */
  watch(daemon: LiveDaemon, exited: Promise<string> | null, onGone: (how: string) => Promise<void> | void): void {
    const gone = (how: string) => {
      // Stopped or replaced on purpose; or this gateway is shutting down (the next one reconciles).
      if (this.isClosed || this.bySession.get(daemon.sessionId) !== daemon) return;
      void (async () => await onGone(how))().catch((error) => {
        // The gateway stopped while the exit was being recorded (its database is closed): the next start reconciles.
        if (!this.isClosed) this.unrecorded(daemon.sessionId, error);
      });
    };
    if (exited) void exited.then(gone);
    else {
      daemon.poll = setInterval(() => {
        if (!isSameProcess(daemon)) gone("process gone");
      }, ADOPTED_POLL_MS);
      daemon.poll.unref?.();
    }
  }
}

/** The token a session's daemon answers to, from the credential file in its session dir; null if unreadable. */
export function daemonToken(row: SessionRow): string | null {
  try {
    return row.sessionDir ? loadCredential(join(row.sessionDir, CREDENTIAL_FILE)) : null;
  } catch {
    return null;
  }
}

/** The daemon process a session row records (pid and start time), not necessarily a live one; null if none is recorded. */
export function recordedDaemon(row: SessionRow): DaemonProcess | null {
  return row.pid !== null && row.pidStartTicks !== null ? { pid: row.pid, startTicks: row.pidStartTicks, port: row.port, token: daemonToken(row), exited: null } : null;
}
