// OAuth wire rules shared by every OAuth endpoint: the `{error, error_description}` body, no-store
// headers on every response (errors too), internal failures without internals, and strict form parsing
// (RFC 6749 §3.2: form-encoded only, empty values count as absent, a parameter sent twice is refused).
import type { Logger } from "../context.ts";
import { databaseUnavailable } from "../db/unavailable.ts";
import { DATABASE_RETRY_AFTER, DATABASE_UNAVAILABLE_BODY, faultMessage, noteDatabaseUnavailable } from "../server/errors.ts";
import { redactText } from "../../util/redact.ts";

/** Headers every OAuth endpoint response carries (RFC 6749 §5.1; checklist T7). */
export const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" } as const;

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "authorization_pending"
  | "slow_down"
  | "access_denied"
  | "expired_token"
  | "invalid_client_metadata"
  | "invalid_redirect_uri"
  | "server_error"
  | "temporarily_unavailable";

/** An OAuth error response. Descriptions are fixed texts written here, never echoed input. */
export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status = code === "invalid_client" ? 401 : code === "server_error" ? 500 : 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = "OAuthError";
  }

  response(): Response {
    return oauthJson(this.status, { error: this.code, error_description: this.description }, this.headers);
  }
}

export function oauthJson(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...NO_STORE, ...headers } });
}

/**
 * The answer to an error an OAuth endpoint did not expect: 503 `temporarily_unavailable` (RFC 6749
 * §4.1.2.1's code) when the database cannot be used, so a client retries instead of dropping its tokens;
 * else 500 `server_error` naming only the request id, whose log line says what failed.
 */
export function oauthInternalFailure(error: unknown, requestId: string, logger: Logger): Response {
  const unavailable = databaseUnavailable(error);
  if (unavailable) {
    noteDatabaseUnavailable(unavailable, logger);
    return oauthJson(503, { error: "temporarily_unavailable", error_description: DATABASE_UNAVAILABLE_BODY.message }, { "Retry-After": DATABASE_RETRY_AFTER });
  }
  logger.error(`request ${requestId} failed in the OAuth server: ${redactText(faultMessage(error))}`);
  return oauthJson(500, { error: "server_error", error_description: `internal error (request ${requestId})` });
}

/** The parameters of a form-encoded OAuth request; throws `invalid_request` for anything else. */
export async function readOAuthForm(request: Request): Promise<Map<string, string>> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") throw new OAuthError("invalid_request", "the request body must be application/x-www-form-urlencoded");
  const params = new URLSearchParams(await request.text());
  const out = new Map<string, string>();
  const seen = new Set<string>();
  for (const [key, value] of params) {
    if (seen.has(key)) throw new OAuthError("invalid_request", `the parameter '${safeName(key)}' was sent more than once`);
    seen.add(key);
    if (value !== "") out.set(key, value);
  }
  return out;
}

/** A parameter name fit for an error description (ASCII without quotes or backslashes, short). */
function safeName(key: string): string {
  return /^[A-Za-z0-9_.-]{1,40}$/.test(key) ? key : "(unprintable)";
}

/** Space-separated scope list -> distinct scopes; undefined when absent. */
export function parseScope(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const scopes = [...new Set(value.split(" ").filter(Boolean))];
  if (scopes.some((s) => !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s))) throw new OAuthError("invalid_scope", "a scope contains characters RFC 6749 §3.3 does not allow");
  return scopes;
}

/** Requested scopes must be a subset of what is allowed; none requested means all of `allowed`. */
export function narrowScopes(requested: string[] | undefined, allowed: readonly string[]): string[] {
  if (requested === undefined || requested.length === 0) return [...allowed];
  const extra = requested.find((s) => !allowed.includes(s));
  if (extra !== undefined) throw new OAuthError("invalid_scope", `the scope '${/^[a-z_]{1,32}$/.test(extra) ? extra : "(unknown)"}' was not granted to this client; allowed: ${allowed.join(" ") || "(none)"}`);
  return requested;
}
