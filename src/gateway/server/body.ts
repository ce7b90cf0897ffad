// Request bodies, read whole at the edge before anything parses them: at most the route's limit (413
// otherwise, chunked bodies included, since they declare no length), and within a deadline (408 for a body
// that stalls or trickles). Both refusals are JSON answers; the connection is then closed, as the rest of
// the body is never read.
import { jsonResponse } from "./errors.ts";
import { MAX_JSON_DEPTH } from "../../util/json-depth.ts";

export interface BodyDeadlines {
  /** A body that sends nothing for this long is refused (the connection's idle timeout, which the read lifts). */
  idleMs: number;
  /** The whole body must arrive within this (a slow trickle keeps no connection forever). */
  totalMs: number;
}

export const DEFAULT_BODY_TOTAL_MS = 60_000;

function tooLarge(limit: number): Response {
  return jsonResponse(413, { error: "payload_too_large", message: `request bodies on this route are limited to ${limit} bytes` }, { Connection: "close" });
}

function tooSlow(): Response {
  return jsonResponse(408, { error: "request_timeout", message: "the request body did not arrive in time" }, { Connection: "close" });
}

/** A JSON body nested deeper than util/json-depth.ts allows, refused before any parser sees it. */
export function tooDeep(): Response {
  return jsonResponse(400, { error: "bad_request", message: `the request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep` });
}

/** The declared length refused before reading, when it is over the limit or not a length at all. */
export function declaredTooLarge(request: Request, limit: number): Response | undefined {
  const declared = request.headers.get("content-length");
  return declared !== null && !(Number(declared) <= limit) ? tooLarge(limit) : undefined;
}

/** The whole body (null when the request has none), or the 413/408 refusal. */
export async function readBody(request: Request, limit: number, deadlines: BodyDeadlines): Promise<Uint8Array<ArrayBuffer> | null | Response> {
  if (!request.body) return null;
  const reader = (request.body as ReadableStream<Uint8Array<ArrayBuffer>>).getReader();
  const refuse = (res: Response) => {
    reader.cancel().catch(() => {});
    return res;
  };
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  const started = Date.now();
  for (;;) {
    const wait = Math.min(deadlines.idleMs, deadlines.totalMs - (Date.now() - started));
    if (wait <= 0) return refuse(tooSlow());
    let timer: ReturnType<typeof setTimeout> | undefined;
    let next: Awaited<ReturnType<typeof reader.read>> | "late";
    try {
      next = await Promise.race([reader.read(), new Promise<"late">((resolve) => (timer = setTimeout(resolve, wait, "late")))]);
    } catch {
      // The client went away mid-body; the answer is for the log only.
      return refuse(jsonResponse(400, { error: "bad_request", message: "the request body ended early" }, { Connection: "close" }));
    } finally {
      clearTimeout(timer);
    }
    if (next === "late") return refuse(tooSlow());
    if (next.done) break;
    size += next.value.byteLength;
    if (size > limit) return refuse(tooLarge(limit));
    chunks.push(next.value);
  }
  return chunks.length === 1 ? chunks[0]! : new Uint8Array(Buffer.concat(chunks));
}
