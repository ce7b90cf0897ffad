// One streaming POST to a provider: headers, TLS trust, HTTP error mapping to typed errors with the
// server's retry hints. Error text is built from status and provider error fields, then redacted.
import type { Clock } from "../util/clock.ts";
import { ProviderError, kindForStatus } from "./errors.ts";
import type { TrustStore } from "./tls.ts";
import { fetchTlsOptions } from "./tls.ts";

export type FetchLike = (input: string, init: RequestInit & { tls?: unknown }) => Promise<Response>;

export interface HttpDeps {
  fetch?: FetchLike;
  trustStore?: TrustStore | null;
  clock: Clock;
}

/** retry-after-ms, then retry-after (seconds or an HTTP date). */
export function retryHintMs(headers: Headers, now: number): number | null {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  const ra = headers.get("retry-after");
  if (ra === null) return null;
  if (/^\d+(\.\d+)?$/.test(ra.trim())) return Math.round(Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export function shouldRetryHeader(headers: Headers): boolean | null {
  const v = headers.get("x-should-retry")?.trim().toLowerCase();
  return v === "true" ? true : v === "false" ? false : null;
}

export function requestIdOf(headers: Headers): string | null {
  return headers.get("request-id") ?? headers.get("x-request-id");
}

/** Maps a non-2xx response to a ProviderError (reads at most the error body). */
export async function errorFromResponse(res: Response, now: number, secrets: readonly string[]): Promise<ProviderError> {
  let type: string | null = null;
  let message = "";
  const text = await res.text().catch(() => "");
  try {
    const body = JSON.parse(text);
    const err = body?.error ?? body;
    type = err?.type && err.type !== "error" ? String(err.type) : null;
    if (err?.code) type = String(err.code);
    if (typeof err?.message === "string") message = err.message;
  } catch {
    message = text.slice(0, 200);
  }
  const status = res.status;
  return new ProviderError({
    kind: kindForStatus(status, type, message),
    status,
    code: type ?? `http_${status}`,
    message: `provider returned HTTP ${status}${type ? ` ${type}` : ""}${message ? `: ${message}` : ""}`,
    retryAfterMs: retryHintMs(res.headers, now),
    // A 429 for an exhausted quota (billing) does not clear by waiting; the server's header still wins.
    shouldRetry: shouldRetryHeader(res.headers) ?? (type === "insufficient_quota" ? false : null),
    requestId: requestIdOf(res.headers),
    secrets,
  });
}

export async function postStream(
  url: string,
  headers: Record<string, string>,
  body: string,
  deps: HttpDeps,
  signal: AbortSignal | undefined,
  secrets: readonly string[],
): Promise<Response> {
  const doFetch: FetchLike = deps.fetch ?? ((input, init) => fetch(input, init as RequestInit));
  let res: Response;
  try {
    const tls = fetchTlsOptions(deps.trustStore ?? null);
    res = await doFetch(url, { method: "POST", headers, body, signal, ...(tls ? { tls } : {}) });
  } catch (error) {
    if (signal?.aborted) throw new ProviderError({ kind: "cancelled", code: "cancelled", message: "provider request cancelled" });
    const cause = error as Error & { code?: string };
    throw new ProviderError({
      kind: "network",
      code: cause.code ?? "connection_failed",
      message: `could not reach provider at ${new URL(url).origin}: ${cause.message}`,
      secrets,
    });
  }
  if (!res.ok) throw await errorFromResponse(res, deps.clock.now(), secrets);
  if (!res.body) throw new ProviderError({ kind: "protocol", code: "empty_body", message: "provider returned no response body" });
  return res;
}
