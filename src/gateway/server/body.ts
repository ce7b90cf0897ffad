// Request bodies, read whole at the edge before anything parses them: at most the route's limit (413
// otherwise, chunked bodies included, since they declare no length), and within a deadline (408 for a body
// that stalls or trickles). Both refusals are JSON answers; the connection is then closed, as the rest of
// the body is never read.
import { jsonResponse } from "./errors.ts";
import { declaresOver, readBodyCapped, type BodyDeadlines } from "../../util/read-body.ts";
import { MAX_JSON_DEPTH } from "../../util/json-depth.ts";

export type { BodyDeadlines };

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
  return declaresOver(request, limit) ? tooLarge(limit) : undefined;
}

/** The whole body (null when the request has none), or the 413/408 refusal. */
export async function readBody(request: Request, limit: number, deadlines: BodyDeadlines): Promise<Uint8Array<ArrayBuffer> | null | Response> {
  if (!request.body) return null;
  const read = await readBodyCapped(request.body, limit, deadlines);
  if (read.ok) return read.bytes;
  if (read.reason === "too_large") return tooLarge(limit);
  if (read.reason === "late") return tooSlow();
  // The client went away mid-body; the answer is for the log only.
  return jsonResponse(400, { error: "bad_request", message: "the request body ended early" }, { Connection: "close" });
}
