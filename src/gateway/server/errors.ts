// Turns anything a handler throws into a response with no internals: ProtocolErrors keep their code,
// validation errors keep only paths and messages (never the submitted values), everything else is a 500.
import { ProtocolError } from "../../protocol/errors.ts";
import { redactText } from "../../util/redact.ts";
import { UNAUTHORIZED_BODY } from "../auth/bearer.ts";
import type { Logger } from "../context.ts";

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(typeof body === "string" ? body : JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

export function errorResponse(error: unknown, code: string | number | undefined, requestId: string, logger: Logger): Response {
  if (error instanceof ProtocolError) {
    if (error.status === 401) return jsonResponse(401, UNAUTHORIZED_BODY, error.headers);
    return jsonResponse(error.status, error.body(), error.headers);
  }
  switch (code) {
    case "VALIDATION": {
      const all = ((error as { all?: Array<{ path?: string; summary?: string; message?: string }> }).all ?? []).slice(0, 20);
      const errors = all.map((e) => ({ path: e.path || "/", message: e.summary ?? e.message ?? "invalid value" }));
      return jsonResponse(422, { error: "validation_failed", errors });
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
