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
  // client-protocol.md, Errors (daemon sync, history, operations, fleet)
  invalid_cursor: 400,
  cursor_wrong_session: 400,
  invalid_checkpoint: 400,
  attachment_range_invalid: 400,
  invalid_query: 400,
  invalid_operation_context: 400,
  epoch_mismatch: 409,
  operation_payload_conflict: 409,
  history_requires_stopped: 409,
  history_not_finalized: 409,
  history_source_changed: 409,
  turn_in_flight: 409,
  interrogative_withdrawn: 409,
  interrogative_not_pending: 409,
  artifact_version_stale: 409,
  cursor_too_old: 410,
  checkpoint_expired: 410,
  snapshot_expired: 410,
  operation_expired: 410,
  reset_required: 410,
  history_unavailable: 404,
  attachment_not_found: 404,
  history_corrupt: 422,
  attachment_too_large: 413,
  artifact_too_large: 413,
  /** 413 at a fleet response's capacity boundary; generic surfaces send it with 503 (pass the status). */
  fleet_capacity_exceeded: 413,
  operation_capacity_exceeded: 429,
  /** Session commands (`POST /commands/{name}`): no such command, arguments that do not fit, cannot run now, failed. */
  unknown_command: 404,
  invalid_command: 422,
  command_unavailable: 409,
  /** The command ran and failed upstream (e.g. /compact's summary model); nothing changed. */
  command_failed: 502,
  /** /undo or /rewind would overwrite a file changed since the agent changed it; nothing was changed. */
  checkpoint_conflict: 409,
  snapshot_capacity_exceeded: 503,
  /** The daemon's storage: a full disk (507 Insufficient Storage), a read-only or failing filesystem. */
  storage_full: 507,
  storage_failed: 503,
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
