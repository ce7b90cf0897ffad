// Stream health: idle (stall) detection and maximum stream lifetime, both read from the injected clock.
// Any received bytes (including keep-alive pings) reset the idle timer.
import type { Clock } from "../util/clock.ts";
import type { StreamSettings } from "./settings.ts";

/** Built-in default of provider_stream_idle_timeout_secs (also used when the setting is 0). */
export const DEFAULT_STREAM_IDLE_TIMEOUT_SECS = 300;
/** Built-in default of provider_stream_max_lifetime_secs (0 disables the limit). */
export const DEFAULT_STREAM_MAX_LIFETIME_SECS = 3600;

export interface StreamHealth {
  idleMs: number;
  /** null: no lifetime limit. */
  lifetimeMs: number | null;
}

export function resolveStreamHealth(settings: StreamSettings | null | undefined): StreamHealth {
  const idle = settings?.provider_stream_idle_timeout_secs;
  const life = settings?.provider_stream_max_lifetime_secs;
  return {
    idleMs: (idle == null || idle === 0 ? DEFAULT_STREAM_IDLE_TIMEOUT_SECS : idle) * 1000,
    lifetimeMs: life === 0 ? null : (life ?? DEFAULT_STREAM_MAX_LIFETIME_SECS) * 1000,
  };
}

export type ReadOutcome =
  | { kind: "chunk"; value: Uint8Array }
  | { kind: "eof" }
  | { kind: "stalled"; idleMs: number }
  | { kind: "lifetime"; lifetimeMs: number };

/** Reads one chunk unless the idle timeout or the stream's lifetime runs out first. */
export async function readWithDeadlines(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  health: StreamHealth,
  clock: Clock,
  startedAt: number,
): Promise<ReadOutcome> {
  const lifeLeft = health.lifetimeMs === null ? Infinity : startedAt + health.lifetimeMs - clock.now();
  if (lifeLeft <= 0) return { kind: "lifetime", lifetimeMs: health.lifetimeMs! };
  const wait = Math.min(health.idleMs, lifeLeft);
  const timer = new AbortController();
  const read = reader.read().then((r): ReadOutcome => (r.done ? { kind: "eof" } : { kind: "chunk", value: r.value }));
  const timeout = clock.sleep(wait, timer.signal).then(
    (): ReadOutcome =>
      health.lifetimeMs !== null && clock.now() >= startedAt + health.lifetimeMs
        ? { kind: "lifetime", lifetimeMs: health.lifetimeMs }
        : { kind: "stalled", idleMs: health.idleMs },
    () => new Promise<ReadOutcome>(() => {}),
  );
  try {
    return await Promise.race([read, timeout]);
  } finally {
    timer.abort();
  }
}
