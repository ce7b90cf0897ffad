// Reads a request body whole, at most `limit` bytes and (optionally) within deadlines; the rest of an
// over-long or late body is never read. Each HTTP surface answers the refusals in its own error envelope.

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
    if (size > limit) return refuse("too_large");
    chunks.push(next.value);
  }
  return { ok: true, bytes: chunks.length === 1 ? chunks[0]! : new Uint8Array(Buffer.concat(chunks)) };
}
