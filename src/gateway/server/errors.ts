// Turns anything a handler throws into a response with no internals: ProtocolErrors keep their code,
// a request that fails its route's schema gets 422 with paths and messages (never the submitted values),
// an answer that fails its own response schema is the gateway's fault (500, logged), everything else a 500.
import { ProtocolError } from "../../protocol/errors.ts";
import { redactText } from "../../util/redact.ts";
import { schemaChecks, schemaIssues } from "../../util/schema-issues.ts";
import { UNAUTHORIZED_BODY } from "../auth/bearer.ts";
import { logEvent } from "../auth/failure-counts.ts";
import type { Logger } from "../context.ts";


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
  const message = error instanceof Error ? error.message : String(error);
  logger.error(`request ${requestId} failed: ${redactText(message)}`);
  return jsonResponse(500, { error: "internal_error", request_id: requestId });
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
