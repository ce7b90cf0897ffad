// The follow-and-reconnect loop both live views share: the conversation's record stream (connection.ts)
// and the picker's fleet feed (connect/fleet-feed.ts). Each round follows until it fails, its stream ends
// or it is ended; then the caller decides (stop, try again at once, or wait) and the wait doubles with
// each failed attempt, from baseDelayMs up to maxDelayMs. A silent stream fails its round through the
// liveness deadline of the SSE reader (src/client/daemon-sse.ts), so it reconnects like a closed one.

export interface BackoffOptions {
  /** The first wait after a failure; it doubles with each further one, up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export type AfterLoss = "stop" | "now" | "wait";

export interface ReconnectRound {
  /** Follows until the stream fails (throws), ends (resolves) or `signal` aborts. `end` gives up this round. */
  follow(signal: AbortSignal, end: () => void): Promise<void>;
  /** A round was lost (`error`: what it threw, or null); `attempts` counts losses since the last `connected()`. */
  lost(error: unknown, attempts: number): AfterLoss | Promise<AfterLoss>;
}

export class ReconnectLoop {
  /** Rounds lost since the stream was last healthy. */
  attempts = 0;
  private round: AbortController | null = null;
  private waiting: AbortController | null = null;
  private restarting = false;

  constructor(private readonly options: BackoffOptions = {}) {}

  /** The stream is healthy again: the next loss waits the base delay. */
  connected(): void {
    this.attempts = 0;
  }

  /** Ends the current round (or the wait after a loss) and starts the next one at once, without counting a loss. */
  restart(): void {
    this.restarting = true;
    this.round?.abort();
    this.waiting?.abort();
  }

  /** Runs rounds until `signal` aborts or `lost` says stop. */
  async run(signal: AbortSignal, rounds: ReconnectRound): Promise<void> {
    while (!signal.aborted) {
      const round = new AbortController();
      this.round = round;
      this.restarting = false;
      let error: unknown = null;
      try {
        await rounds.follow(AbortSignal.any([signal, round.signal]), () => round.abort());
      } catch (thrown) {
        error = thrown;
      }
      if (signal.aborted) return;
      if (this.restarting) continue;
      this.attempts++;
      const next = await rounds.lost(error, this.attempts);
      if (next === "stop") return;
      // A restart asked for while the loss was handled skips the wait too.
      if (next === "wait" && !this.restarting) {
        this.waiting = new AbortController();
        await sleep(this.delay(), AbortSignal.any([signal, this.waiting.signal]));
        this.waiting = null;
      }
    }
  }

  private delay(): number {
    return Math.min((this.options.baseDelayMs ?? 250) * 2 ** (this.attempts - 1), this.options.maxDelayMs ?? 5000);
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
