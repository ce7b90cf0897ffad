// The follow-and-reconnect loop the conversation view and the fleet feed share: losses are counted until
// the stream is healthy again, the caller decides stop / now / wait, a restart is not a loss and cuts a
// wait short, and aborting the outer signal ends everything (also in the middle of a wait).
import { describe, expect, test } from "bun:test";
import { ReconnectLoop } from "../../tui/reconnect-loop.ts";

// Waits this long would time the test out: reaching the next round proves no wait happened.
const FOREVER = 3_600_000;

describe("ReconnectLoop", () => {
  test("losses count up, connected() resets them; 'now' retries at once, 'stop' ends the loop", async () => {
    const loop = new ReconnectLoop({ baseDelayMs: FOREVER });
    const seen: { error: unknown; attempts: number }[] = [];
    let rounds = 0;
    await loop.run(new AbortController().signal, {
      follow: async (_signal, end) => {
        rounds++;
        if (rounds === 2) loop.connected();
        if (rounds === 3) return end();
        throw new Error(`round ${rounds}`);
      },
      lost: (error, attempts) => {
        seen.push({ error: error instanceof Error ? error.message : error, attempts });
        return rounds < 4 ? "now" : "stop";
      },
    });
    expect(seen).toEqual([
      { error: "round 1", attempts: 1 },
      { error: "round 2", attempts: 1 },
      { error: null, attempts: 2 },
      { error: "round 4", attempts: 3 },
    ]);
  });

  test("restart() ends a round without counting a loss, and cuts a backoff wait short", async () => {
    const loop = new ReconnectLoop({ baseDelayMs: FOREVER });
    const stop = new AbortController();
    const attempts: number[] = [];
    let rounds = 0;
    await loop.run(stop.signal, {
      follow: (signal) => {
        rounds++;
        if (rounds === 1) {
          queueMicrotask(() => loop.restart());
          return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        }
        if (rounds === 2) return Promise.reject(new Error("lost"));
        stop.abort();
        return Promise.resolve();
      },
      lost: (_error, n) => {
        attempts.push(n);
        // The wait would last an hour: only the restart (once the wait has begun) brings round 3.
        setTimeout(() => loop.restart(), 1);
        return "wait";
      },
    });
    expect(rounds).toBe(3);
    expect(attempts).toEqual([1]);
  });

  test("aborting the outer signal during a wait ends the loop", async () => {
    const loop = new ReconnectLoop({ baseDelayMs: FOREVER });
    const stop = new AbortController();
    await loop.run(stop.signal, {
      follow: () => Promise.reject(new Error("down")),
      lost: () => {
        queueMicrotask(() => stop.abort());
        return "wait";
      },
    });
    expect(loop.attempts).toBe(1);
  });
});
