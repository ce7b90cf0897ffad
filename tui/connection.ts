// Keeps the view attached to its session: follows the record stream through DaemonClient (which replays
// from the last applied cursor, or rebuilds from a new snapshot after an epoch change or reset) and, when
// the connection drops (closed, refused, or silent past the client's liveness deadline: not even a
// heartbeat for 35 s), shows the banner and waits with exponential backoff before following again. A
// local launcher may pass `recover` to start the session's daemon again when it is gone; remote clients
// (the gateway proxy) do not.
import type { DaemonClient } from "../src/client/daemon-client.ts";
import { ReconnectLoop, type BackoffOptions } from "./reconnect-loop.ts";
import type { ViewStore } from "./view-store.ts";

export interface ConnectionOptions extends BackoffOptions {
  /** Called after repeated failures; returns a client for a restarted daemon, or null to keep waiting. */
  recover?: () => Promise<DaemonClient | null>;
  /** Failed attempts before `recover` is tried. */
  recoverAfter?: number;
}

export class Connection {
  private readonly loop: ReconnectLoop;
  private current: DaemonClient | null;

  constructor(
    client: DaemonClient | null,
    private readonly store: ViewStore,
    private readonly options: ConnectionOptions = {},
  ) {
    this.current = client;
    this.loop = new ReconnectLoop(options);
  }

  /** The client of the session's daemon; commands typed before the first connection get a clear error. */
  get client(): DaemonClient {
    if (!this.current) throw new Error("not connected to the session yet");
    return this.current;
  }

  set client(next: DaemonClient) {
    this.current = next;
  }

  private restarting: string | null = null;

  /**
   * Replaces the session's daemon (`/reload`: stop it, start it again): while `restart` runs the lost
   * stream and the daemon's "stopped" are expected, then the view follows the new daemon from its snapshot.
   */
  async replaceDaemon(why: string, restart: () => Promise<DaemonClient>): Promise<void> {
    this.restarting = why;
    try {
      this.client = await restart();
    } finally {
      this.restarting = null;
      this.loop.restart();
    }
  }

  /** Follows until `signal` aborts. */
  run(signal: AbortSignal): Promise<void> {
    const loop = this.loop;
    return loop.run(signal, {
      follow: (round, end) =>
        this.client
          .follow(
            {
              onSnapshot: (snap, rebuild) => {
                loop.connected();
                this.store.onSnapshot(snap, rebuild);
              },
              onRecords: (records) => this.store.onRecords(records),
              onProblem: (message) => {
                // Leave DaemonClient's own fixed-delay retry: this loop backs off and may recover.
                this.store.onProblem(message, loop.attempts);
                end();
              },
            },
            round,
          )
          .catch((error: unknown) => this.store.onProblem(error instanceof Error ? error.message : String(error), loop.attempts)),
      lost: async (_error, attempts) => {
        if (this.restarting) {
          this.store.onProblem(this.restarting, attempts);
          return "wait";
        }
        if (this.store.state.sessionState === "stopped") {
          this.store.onEnded();
          return "stop";
        }
        this.store.onProblem(this.store.health.message ?? "connection lost", attempts);
        if (this.options.recover && attempts >= (this.options.recoverAfter ?? 2)) {
          const next = await this.options.recover().catch((error: unknown) => {
            this.store.onProblem(`restarting the daemon failed: ${error instanceof Error ? error.message : String(error)}`, attempts);
            return null;
          });
          if (next) {
            this.client = next;
            return "now";
          }
        }
        return "wait";
      },
    });
  }
}
