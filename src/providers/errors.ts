// Typed provider errors. Messages are built from status, codes and provider text only, and run
// through redaction, so API keys never reach logs, errors or autopsy reports.
import { redactText } from "../util/redact.ts";

export const PROVIDER_ERROR_KINDS = [
  "rate_limited",
  "overloaded",
  "context_length_exceeded",
  "auth",
  "invalid_request",
  "server",
  "network",
  "stalled",
  /** The provider broke its own wire format (bad JSON, stream ended without a terminal event). */
  "protocol",
  /** A tool call's final arguments were not a JSON object. */
  "invalid_tool_arguments",
  "cancelled",
] as const;
export type ProviderErrorKind = (typeof PROVIDER_ERROR_KINDS)[number];

export interface ProviderErrorInit {
  kind: ProviderErrorKind;
  message: string;
  status?: number | null;
  /** Provider error type/code (e.g. `overloaded_error`, `rate_limit_exceeded`) or ours (`stream_cut`). */
  code?: string | null;
  /** Server retry hint in ms (retry-after-ms / retry-after), if any. */
  retryAfterMs?: number | null;
  /** `x-should-retry` header: the server's own directive, which wins over our table. */
  shouldRetry?: boolean | null;
  requestId?: string | null;
  /** Values to scrub from the message (keys of the call). */
  secrets?: readonly string[];
}

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly status: number | null;
  readonly code: string;
  readonly retryAfterMs: number | null;
  readonly shouldRetry: boolean | null;
  readonly requestId: string | null;

  constructor(init: ProviderErrorInit) {
    super(redactText(init.message, init.secrets ?? []));
    this.name = "ProviderError";
    this.kind = init.kind;
    this.status = init.status ?? null;
    this.code = init.code ?? init.kind;
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.shouldRetry = init.shouldRetry ?? null;
    this.requestId = init.requestId ?? null;
  }
}

const CONTEXT_MESSAGE = /prompt is too long|maximum context length|context window|too many tokens/i;

/** Kind for an HTTP status and a provider error type/code (checked in that order of specificity). */
export function kindForStatus(status: number, code: string | null, message = ""): ProviderErrorKind {
  const c = (code ?? "").toLowerCase();
  // Messages reports an over-long prompt as a plain invalid_request_error ("prompt is too long").
  if (status === 400 && CONTEXT_MESSAGE.test(message)) return "context_length_exceeded";
  if (c.includes("context_length") || c === "request_too_large" || c.includes("context_window")) return "context_length_exceeded";
  if (c.includes("overloaded") || status === 529) return "overloaded";
  if (c.includes("rate_limit") || c === "insufficient_quota" || status === 429) return "rate_limited";
  if (status === 401 || status === 403 || c.includes("authentication") || c.includes("permission")) return "auth";
  if (status === 413) return "context_length_exceeded";
  if (status >= 500) return "server";
  if (status === 408 || status === 409) return "server";
  return "invalid_request";
}

/** Kind for an in-stream error object (Messages `error` event, Responses `response.failed` / `error`). */
export function kindForStreamCode(code: string | null, message: string): ProviderErrorKind {
  const c = (code ?? "").toLowerCase();
  if (c.includes("context_length") || c.includes("context_window") || c === "request_too_large") return "context_length_exceeded";
  if (c.includes("overloaded")) return "overloaded";
  if (c.includes("rate_limit") || c === "insufficient_quota") return "rate_limited";
  if (c.includes("authentication") || c.includes("permission")) return "auth";
  if (c.includes("invalid_request") || c.includes("invalid_prompt")) return /context|too long/i.test(message) ? "context_length_exceeded" : "invalid_request";
  return "server";
}

export function protocolError(message: string, code = "protocol_violation"): ProviderError {
  return new ProviderError({ kind: "protocol", message, code });
}
