// Reads a request body whole, at most `limit` bytes and (optionally) within deadlines; the rest of a late
// body is never read, and of an over-long one only what the client is still sending in the moment after
// the limit (drainBriefly). Each HTTP surface answers the refusals in its own error envelope.

export interface BodyDeadlines {
  /** Nothing arrives for this long: late. */
  idleMs: number;
  /** Not complete after this long: late (a slow trickle keeps no connection forever). */
  totalMs: number;
}

export type BodyRead = { ok: true; bytes: Uint8Array<ArrayBuffer> } | { ok: false; reason: "too_large" | "late" | "ended_early" };

/** Whether a declared Content-Length is over `limit` (or not a length at all). */
export function declaresOver(request: Request, limit: number): boolean {
  const declared = request.headers.get("content-length");
  return declared !== null && !(Number(declared) <= limit);
}

export async function readBodyCapped(body: ReadableStream, limit: number, deadlines?: BodyDeadlines): Promise<BodyRead> {
  const reader = (body as ReadableStream<Uint8Array<ArrayBuffer>>).getReader();
  const refuse = (reason: "too_large" | "late" | "ended_early"): BodyRead => {
    reader.cancel().catch(() => {});
    return { ok: false, reason };
  };
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  const started = Date.now();
  for (;;) {
    const wait = deadlines ? Math.min(deadlines.idleMs, deadlines.totalMs - (Date.now() - started)) : Infinity;
    if (wait <= 0) return refuse("late");
    let timer: ReturnType<typeof setTimeout> | undefined;
    let next: Awaited<ReturnType<typeof reader.read>> | "late";
    try {
      next = wait === Infinity ? await reader.read() : await Promise.race([reader.read(), new Promise<"late">((resolve) => (timer = setTimeout(resolve, wait, "late")))]);
    } catch {
      return refuse("ended_early");
    } finally {
      clearTimeout(timer);
    }
    if (next === "late") return refuse("late");
    if (next.done) break;
    size += next.value.byteLength;
    if (size > limit) {
      await drainBriefly(reader);
      return refuse("too_large");
    }
    chunks.push(next.value);
  }
  return { ok: true, bytes: chunks.length === 1 ? chunks[0]! : new Uint8Array(Buffer.concat(chunks)) };
}

/** How long, and how much, an over-long body is still read (and dropped) before the refusal is sent. */
const DRAIN = { idleMs: 100, totalMs: 1_000, bytes: 16 * 1024 * 1024 };

/**
 * Reads and drops what a client still sends right after its body went over the limit: until the body
 * ends, nothing arrives for DRAIN.idleMs, or DRAIN.totalMs or DRAIN.bytes are spent. A connection closed
 * with bytes it has not read is reset (RST) rather than closed, and a reset can throw away the refusal
 * before the client reads it: a client still uploading then saw "connection reset" instead of the 413.
 */
async function drainBriefly(reader: ReadableStreamDefaultReader<Uint8Array<ArrayBuffer>>): Promise<void> {
  const started = Date.now();
  let drained = 0;
  while (drained < DRAIN.bytes && Date.now() - started < DRAIN.totalMs) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const next = await Promise.race([reader.read(), new Promise<"idle">((resolve) => (timer = setTimeout(resolve, DRAIN.idleMs, "idle")))]);
      if (next === "idle" || next.done) return;
      drained += next.value.byteLength;
    } catch {
      return;
    } finally {
      clearTimeout(timer);
    }
  }
}
