// Fleet routes answer errors in the fleet envelope `{"code": ...}` (client-protocol.md, Errors;
// FleetErrorV1), not the gateway's `{"error": ...}`. A malformed query is exactly `{"code":"invalid_query"}`.
import { type ErrorCode, ProtocolError } from "../../protocol/errors.ts";

export class FleetError extends ProtocolError {
  constructor(code: ErrorCode, message?: string, status?: number) {
    super(code, status, message);
    this.name = "FleetError";
  }

  override body(): Record<string, string> {
    return this.message === this.code ? { code: this.code } : { code: this.code, message: this.message };
  }
}

/** 400 `{"code":"invalid_query"}` with no message (rule 3 for fleet routes). */
export function invalidQuery(): FleetError {
  return new FleetError("invalid_query");
}
