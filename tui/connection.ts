// Keeps the view attached to its session: follows the record stream through DaemonClient (which replays
// from the last applied cursor, or rebuilds from a new snapshot after an epoch change or reset) and, when
// the connection drops (closed, refused, or silent past the client's liveness deadline: not even a
// heartbeat for 35 s), shows the banner and waits with exponential backoff before following again. A
// local launcher may pass `recover` to start the session's daemon again when it is gone; remote clients
// (the gateway proxy) do not.
import type { DaemonClient } from "../src/client/daemon-client.ts";
import type { ViewStore } from "./view-store.ts";

export interface ConnectionOptions {
  /** Called after repeated failures; returns a client for a restarted daemon, or null to keep waiting. */
  recover?: () => Promise<DaemonClient | null>;
  /** First reconnect delay; doubles up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Failed attempts before `recover` is tried. */
  recoverAfter?: number;
}

export class Connection {
  private attempts = 0;
  private current: DaemonClient | null;

  constructor(
    client: DaemonClient | null,
    private readonly store: ViewStore,
    private readonly options: ConnectionOptions = {},
  ) {
    this.current = client;
  }

  /** The client of the session's daemon; commands typed before the first connection get a clear error. */
  get client(): DaemonClient {
    if (!this.current) throw new Error("not connected to the session yet");
    return this.current;
  }

  set client(next: DaemonClient) {
    this.current = next;
  }

  /** Follows until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const round = new AbortController();
      const stop = () => round.abort();
      signal.addEventListener("abort", stop, { once: true });
      await this.client
        .follow(
          {
            onSnapshot: (snap, rebuild) => {
              this.attempts = 0;
              this.store.onSnapshot(snap, rebuild);
            },
            onRecords: (records) => this.store.onRecords(records),
            onProblem: (message) => {
              // Leave DaemonClient's own fixed-delay retry: this loop backs off and may recover.
              this.store.onProblem(message, this.attempts);
              round.abort();
            },
          },
          round.signal,
        )
        .catch((error: unknown) => this.store.onProblem(error instanceof Error ? error.message : String(error), this.attempts));
      signal.removeEventListener("abort", stop);
      if (signal.aborted) return;
      if (this.store.state.sessionState === "stopped") return this.store.onEnded();
      this.attempts++;
      this.store.onProblem(this.store.health.message ?? "connection lost", this.attempts);
      const recoverAfter = this.options.recoverAfter ?? 2;
      if (this.options.recover && this.attempts >= recoverAfter) {
        const next = await this.options.recover().catch((error: unknown) => {
          this.store.onProblem(`restarting the daemon failed: ${error instanceof Error ? error.message : String(error)}`, this.attempts);
          return null;
        });
        if (next) {
          this.client = next;
          continue;
        }
      }
      const base = this.options.baseDelayMs ?? 250;
      await sleep(Math.min(base * 2 ** (this.attempts - 1), this.options.maxDelayMs ?? 5000), signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
