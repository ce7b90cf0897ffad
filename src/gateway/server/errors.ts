// Turns anything a handler throws into a response with no internals: ProtocolErrors keep their code,
// a request that fails its route's schema gets 422 with paths and messages (never the submitted values),
// an answer that fails its own response schema is the gateway's fault (500, logged), a database that
// cannot be used now (down, restarting, locked) a 503 that names nothing of it, everything else a 500.
import { ProtocolError } from "../../protocol/errors.ts";
import { redactText } from "../../util/redact.ts";
import { schemaChecks, schemaIssues } from "../../util/schema-issues.ts";
import { UNAUTHORIZED_BODY } from "../auth/bearer.ts";
import { logEvent } from "../auth/failure-counts.ts";
import type { Logger } from "../context.ts";
import { databaseUnavailable } from "../db/unavailable.ts";

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(typeof body === "string" ? body : JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

/** The request an error answers, for the log line of a server fault. */
export interface FailedRequest {
  method: string;
  path: string;
}

export function errorResponse(error: unknown, code: string | number | undefined, requestId: string, logger: Logger, request?: FailedRequest): Response {
  if (error instanceof ProtocolError) {
    if (error.status === 401) return jsonResponse(401, UNAUTHORIZED_BODY, error.headers);
    return jsonResponse(error.status, error.body(), error.headers);
  }
  switch (code) {
    case "VALIDATION": {
      // Elysia 1.4's ValidationError says what failed: "body", "query", "params", "headers", "cookie" (the
      // request's) or "response" (the handler's answer).
      if ((error as { type?: string }).type === "response") return responseSchemaFault(error, requestId, logger, request);
      return jsonResponse(422, { error: "validation_failed", errors: schemaIssues(error) });
    }
    case "PARSE":
      return jsonResponse(400, { error: "bad_request", message: "the request body could not be parsed" });
    case "NOT_FOUND":
      return jsonResponse(404, { error: "not_found" });
    case "INVALID_COOKIE_SIGNATURE":
    case "INVALID_FILE_TYPE":
      return jsonResponse(400, { error: "bad_request" });
  }
  const unavailable = databaseUnavailable(error);
  if (unavailable) {
    noteDatabaseUnavailable(unavailable, logger);
    return jsonResponse(503, DATABASE_UNAVAILABLE_BODY, { "Retry-After": DATABASE_RETRY_AFTER });
  }
  logger.error(`request ${requestId} failed: ${redactText(faultMessage(error))}`);
  return jsonResponse(500, { error: "internal_error", request_id: requestId });
}

/** The body of every 503 for a database outage: no driver message, no code, no URL (gateway.md, authentication rule 2). */
export const DATABASE_UNAVAILABLE_BODY = { error: "unavailable", message: "the service is temporarily unavailable; try again shortly" } as const;
/** Retry-After (seconds) of those 503s: PostgreSQL restarts in about a second and the pool reconnects at once. */
export const DATABASE_RETRY_AFTER = "1";

/** How often an outage is logged: once per period with the number of failed requests since, not once per request. */
const UNAVAILABLE_LOG_MS = 10_000;
const unavailableLog = new WeakMap<Logger, { at: number; since: number }>();

/**
 * Logs a request that failed because the database cannot be used (`code` from databaseUnavailable) as
 * `db.unavailable` with the driver's code, at most every 10 s per logger. The period is wall time, not the
 * gateway's clock: it paces output, it decides nothing.
 */
export function noteDatabaseUnavailable(code: string, logger: Logger): void {
  const now = performance.now();
  const seen = unavailableLog.get(logger);
  if (!seen || now - seen.at >= UNAVAILABLE_LOG_MS) {
    logEvent(logger, "error", "db.unavailable", { code, failed_requests: (seen?.since ?? 0) + 1 });
    unavailableLog.set(logger, { at: now, since: 0 });
  } else seen.since++;
}

/** An error's message for the log; drizzle's query errors quote the query's parameters (hashes, values): their cause's message instead. */
export function faultMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if ("params" in error && error.cause instanceof Error) return `a database query failed: ${error.cause.message}`;
  return error.message;
}

/**
 * An answer that breaks its own response schema is the gateway's fault, never the client's: a 500 with the
 * request id, and one structured log line naming the route and the failed checks by path and rule. The
 * answer's values stay out of it (Elysia's message and summaries quote them, and an answer can hold a token).
 */
function responseSchemaFault(error: unknown, requestId: string, logger: Logger, request?: FailedRequest): Response {
  const checks = schemaChecks(error);
  logEvent(logger, "error", "http.response_schema_violation", {
    request_id: requestId,
    method: request?.method ?? null,
    path: request?.path ?? null,
    checks: redactText(checks),
  });
  return jsonResponse(500, { error: "internal_error", request_id: requestId });
}
