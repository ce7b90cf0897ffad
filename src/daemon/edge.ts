// The outermost handler of the daemon: the bearer token (constant time) before anything else reads the
// request, then the loopback Host check (DNS-rebinding defence), then the query string, then the app.
// Every error leaves as JSON with no internals; tokens never reach a log or a body.
import type { Server } from "bun";
import { ProtocolError } from "../protocol/errors.ts";
import { newId } from "../util/ids.ts";
import { redactText } from "../util/redact.ts";
import { tokenMatches } from "./credential.ts";
import { errorBody } from "./operations.ts";
import { validateQuery } from "./query.ts";
import { isJsonType, jsonNestsDeeper, MAX_JSON_DEPTH } from "../util/json-depth.ts";
import { declaresOver, readBodyCapped } from "../util/read-body.ts";

export interface Handler {
  handle(request: Request): Promise<Response> | Response;
}

export interface DaemonLogger {
  error(message: string): void;
  warn?(message: string): void;
  info?(message: string): void;
  debug?(message: string): void;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(typeof body === "string" ? body : JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:[0-9]{1,5})?$/i;

export const UNAUTHORIZED = { code: "unauthorized", error: "unauthorized", message: "a valid daemon bearer token is required" };

export function errorResponse(error: unknown, logger: DaemonLogger, secrets: readonly string[]): Response {
  if (error instanceof ProtocolError) return json(error.status, errorBody(error), error.headers);
  const requestId = newId("req", Date.now());
  const message = error instanceof Error ? error.message : String(error);
  logger.error(`request ${requestId} failed: ${redactText(message, secrets)}`);
  return json(500, { code: "internal_error", error: "internal_error", request_id: requestId });
}

/** The largest request body (a prompt's images travel base64 inside it). */
export const DAEMON_BODY_LIMIT = 64 * 1024 * 1024;

function tooLarge(limit: number): Response {
  return json(413, { code: "payload_too_large", error: "payload_too_large", message: `request bodies are limited to ${limit} bytes` }, { Connection: "close" });
}

/** The whole body, or the JSON 413 once it is (or declares to be) over the limit; the rest is not read. */
async function readCapped(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | Response> {
  if (declaresOver(request, limit)) return tooLarge(limit);
  const read = await readBodyCapped(request.body!, limit);
  if (read.ok) return read.bytes;
  if (read.reason === "too_large") return tooLarge(limit);
  return json(400, { code: "bad_request", error: "bad_request", message: "the request body ended early" }, { Connection: "close" });
}

export function createDaemonFetch(credential: string | null, app: Handler, logger: DaemonLogger) {
  const secrets = credential ? [credential] : [];
  return async (request: Request, server?: Server<unknown>): Promise<Response> => {
    try {
      const header = request.headers.get("authorization") ?? "";
      // RFC 7235: the scheme name is case-insensitive.
      const presented = header.length > 7 && header.slice(0, 7).toLowerCase() === "bearer " ? header.slice(7) : null;
      // A daemon without a credential rejects every request; the comparison runs even for a missing token.
      const ok = tokenMatches(presented ?? "", credential ?? "") && presented !== null && credential !== null;
      if (!ok) return json(401, UNAUTHORIZED, { "WWW-Authenticate": 'Bearer realm="agent-daemon"' });
      if (!LOOPBACK_HOST.test(request.headers.get("host") ?? "")) {
        return json(403, { code: "forbidden", error: "forbidden", message: "the Host header must name a loopback address (127.0.0.1, localhost or [::1])" });
      }
      const url = new URL(request.url);
      validateQuery(request, url);
      if (url.pathname === "/events") server?.timeout(request, 0);
      if (request.body) {
        // Read whole under the limit (a JSON 413, chunked bodies included), then a JSON body is checked
        // for its nesting before any parser or validator recurses into it.
        const bytes = await readCapped(request, DAEMON_BODY_LIMIT);
        if (bytes instanceof Response) return bytes;
        if (isJsonType(request.headers.get("content-type")) && jsonNestsDeeper(bytes)) return json(400, { code: "bad_request", error: "bad_request", message: `the request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep` });
        return await app.handle(new Request(request.url, { method: request.method, headers: request.headers, body: bytes, signal: request.signal }));
      }
      return await app.handle(request);
    } catch (error) {
      return errorResponse(error, logger, secrets);
    }
  };
}
