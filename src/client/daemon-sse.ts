// A minimal SSE parser for the daemon's /events stream and the gateway's fleet stream: yields complete
// events (id, event, data) and comments (heartbeats). A stream that delivers nothing at all, not even a
// heartbeat, for longer than the silence deadline is dead (a peer that vanished without closing the socket,
// a suspended laptop, a stalled proxy): the parser cancels it and throws SilentStreamError, so the follower
// reconnects instead of showing a stale screen as live.

export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

/** Both streams send a heartbeat comment every 15 s: two missed ones plus a margin mean the peer is gone. */
export const SILENCE_MS = 35_000;

/** The timer the silence deadline runs on; tests pass a manual one so they never wait 35 s. */
export interface SilenceTimers {
  set(fire: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: SilenceTimers = {
  set: (fire, ms) => setTimeout(fire, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface SseOptions {
  /** How long the stream may deliver nothing before it counts as dead (default SILENCE_MS). */
  silenceMs?: number;
  timers?: SilenceTimers;
}

export class SilentStreamError extends Error {
  constructor(readonly silenceMs: number) {
    super(`the event stream sent nothing for ${Math.round(silenceMs / 1000)} s (no records, no heartbeat): the connection is lost`);
    this.name = "SilentStreamError";
  }
}

/**
 * Opens a stream under the same deadline: a peer that accepts the request but never answers it is as dead
 * as one that stops sending. (Bun's server sends a streamed response's headers with its first bytes, so a
 * daemon with nothing to replay answers with its first heartbeat, within 15 s.)
 */
export async function openWithin(open: (signal: AbortSignal) => Promise<Response>, signal: AbortSignal, options: SseOptions = {}): Promise<Response> {
  const silenceMs = options.silenceMs ?? SILENCE_MS;
  const timers = options.timers ?? realTimers;
  const late = new AbortController();
  const handle = timers.set(() => late.abort(), silenceMs);
  try {
    return await open(AbortSignal.any([signal, late.signal]));
  } catch (error) {
    if (late.signal.aborted && !signal.aborted) throw new SilentStreamError(silenceMs);
    throw error;
  } finally {
    timers.clear(handle);
  }
}

export async function* parseSse(body: ReadableStream<Uint8Array>, options: SseOptions = {}): AsyncGenerator<SseMessage | { comment: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const silenceMs = options.silenceMs ?? SILENCE_MS;
  const timers = options.timers ?? realTimers;
  let buffer = "";
  try {
    for (;;) {
      // The deadline covers only the wait for bytes: a consumer slow to apply a frame is not silence.
      const { value, done } = await readWithin(reader, silenceMs, timers);
      if (done) return;
      // Only the new bytes (and the "\n" before them) can complete a message: a large message arriving in
      // many reads (an attach's history) is not searched again from its start after each one.
      let from = Math.max(0, buffer.length - 1);
      buffer += decoder.decode(value, { stream: true });
      let start = 0;
      let at: number;
      while ((at = buffer.indexOf("\n\n", from)) >= 0) {
        const block = buffer.slice(start, at);
        start = from = at + 2;
        let id: string | null = null;
        let event = "message";
        let data = "";
        let fields = 0;
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          fields++;
          const colon = line.indexOf(":");
          const name = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (name === "id") id = value;
          else if (name === "event") event = value;
          else if (name === "data") data += data ? `\n${value}` : value;
        }
        if (fields === 0) yield { comment: block };
        else yield { id, event, data };
      }
      buffer = buffer.slice(start);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function readWithin(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number, timers: SilenceTimers): ReturnType<typeof reader.read> {
  return new Promise((resolve, reject) => {
    const handle = timers.set(() => reject(new SilentStreamError(ms)), ms);
    reader.read().then(
      (result) => (timers.clear(handle), resolve(result)),
      (error: unknown) => (timers.clear(handle), reject(error)),
    );
  });
}
