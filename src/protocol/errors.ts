// One error type for every HTTP surface (daemon, gateway): a handler throws, the edge serializes.
// The code -> status table mirrors the error tables of the specs in one place.

export const ERROR_STATUS = {
  bad_request: 400,
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  validation_failed: 422,
  rate_limited: 429,
  internal_error: 500,
  bad_gateway: 502,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class ProtocolError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode | (string & {}),
    status?: number,
    message?: string,
    /** Extra response headers (e.g. `Retry-After`, `WWW-Authenticate`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? code);
    this.name = "ProtocolError";
    this.status = status ?? (ERROR_STATUS as Record<string, number>)[code] ?? 500;
  }

  /** The wire body: `{"error": code, "message"?: text}`; the message is written for the client, never internals. */
  body(): Record<string, string> {
    return this.message === this.code ? { error: this.code } : { error: this.code, message: this.message };
  }
}

export function statusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}
