// RFC 8628 device authorization client: request a device code, show the user code, poll the token
// endpoint (authorization_pending, slow_down +5 s, access_denied, expired_token), and refresh tokens.
import type { Clock } from "../../util/clock.ts";
import type { FetchLike } from "../http.ts";
import { type TrustStore, fetchTlsOptions } from "../tls.ts";
import { USER_AGENT } from "../user-agent.ts";
import { redactText } from "../../util/redact.ts";

export const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
/** RFC 8628 §3.2: a client that gets no `interval` must use 5 seconds. */
export const DEFAULT_POLL_INTERVAL_SECS = 5;

/** Where a device login authorizes (resolved by `resolveDeviceLogin`, src/providers/device-auth/endpoints.ts). */
export interface DeviceAuthEndpoints {
  device_authorization_endpoint: string;
  token_endpoint: string;
  client_id: string;
  scope?: string | null;
}

export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string | null;
  expires_in: number;
  interval: number;
}

export interface DeviceTokens {
  access_token: string;
  refresh_token: string | null;
  /** Epoch ms; null when the server gave no expires_in. */
  expires_at: number | null;
  token_type: string;
  scope: string | null;
}

export type DeviceAuthErrorCode = "access_denied" | "expired_token" | "invalid_response" | "server_error" | "network" | "invalid_grant" | string;

export class DeviceAuthError extends Error {
  constructor(
    readonly code: DeviceAuthErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "DeviceAuthError";
  }
}

export interface DeviceFlowDeps {
  clock: Clock;
  fetch?: FetchLike;
  trustStore?: TrustStore | null;
}

async function postForm(url: string, form: Record<string, string>, deps: DeviceFlowDeps, signal?: AbortSignal): Promise<{ status: number; body: any }> {
  const doFetch: FetchLike = deps.fetch ?? ((input, init) => fetch(input, init as RequestInit));
  const tls = fetchTlsOptions(deps.trustStore ?? null);
  let res: Response;
  try {
    res = await doFetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", "user-agent": USER_AGENT },
      body: new URLSearchParams(form).toString(),
      redirect: "manual",
      signal,
      ...(tls ? { tls } : {}),
    });
  } catch (error) {
    throw new DeviceAuthError("network", `could not reach ${new URL(url).origin}: ${(error as Error).message}`);
  }
  const text = await res.text();
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {
    // handled by callers through the status and missing fields
  }
  return { status: res.status, body };
}

const secretsOf = (form: Record<string, string>) => [form.device_code, form.refresh_token].filter((s): s is string => !!s);

function oauthError(status: number, body: any, form: Record<string, string>): DeviceAuthError {
  const code = typeof body?.error === "string" ? body.error : status >= 500 ? "server_error" : "invalid_response";
  const detail = typeof body?.error_description === "string" ? `: ${body.error_description}` : "";
  return new DeviceAuthError(code, redactText(`authorization server answered HTTP ${status} ${code}${detail}`, secretsOf(form)));
}

export async function requestDeviceAuthorization(endpoints: DeviceAuthEndpoints, deps: DeviceFlowDeps, signal?: AbortSignal): Promise<DeviceAuthorization> {
  const form: Record<string, string> = { client_id: endpoints.client_id };
  if (endpoints.scope) form.scope = endpoints.scope;
  const { status, body } = await postForm(endpoints.device_authorization_endpoint, form, deps, signal);
  if (status !== 200) throw oauthError(status, body, form);
  for (const field of ["device_code", "user_code", "verification_uri"] as const)
    if (typeof body?.[field] !== "string" || body[field].length === 0) throw new DeviceAuthError("invalid_response", `device authorization response lacks ${field}`);
  if (typeof body.expires_in !== "number" || body.expires_in <= 0) throw new DeviceAuthError("invalid_response", "device authorization response lacks expires_in");
  return {
    device_code: body.device_code,
    user_code: body.user_code,
    verification_uri: body.verification_uri,
    verification_uri_complete: typeof body.verification_uri_complete === "string" ? body.verification_uri_complete : null,
    expires_in: body.expires_in,
    interval: typeof body.interval === "number" && body.interval > 0 ? body.interval : DEFAULT_POLL_INTERVAL_SECS,
  };
}

function tokensFrom(body: any, now: number, previousRefresh: string | null): DeviceTokens {
  if (typeof body?.access_token !== "string" || body.access_token.length === 0) throw new DeviceAuthError("invalid_response", "token response lacks access_token");
  if (typeof body.token_type !== "string" || body.token_type.toLowerCase() !== "bearer")
    throw new DeviceAuthError("invalid_response", `token response has unsupported token_type ${String(body.token_type)}`);
  return {
    access_token: body.access_token,
    refresh_token: typeof body.refresh_token === "string" ? body.refresh_token : previousRefresh,
    expires_at: typeof body.expires_in === "number" ? now + body.expires_in * 1000 : null,
    token_type: "bearer",
    scope: typeof body.scope === "string" ? body.scope : null,
  };
}

/** Polls until the user approves (tokens), denies, or the code expires. */
export async function pollDeviceToken(endpoints: DeviceAuthEndpoints, auth: DeviceAuthorization, deps: DeviceFlowDeps, signal?: AbortSignal): Promise<DeviceTokens> {
  const deadline = deps.clock.now() + auth.expires_in * 1000;
  let interval = auth.interval;
  const form = { grant_type: DEVICE_CODE_GRANT, device_code: auth.device_code, client_id: endpoints.client_id };
  for (;;) {
    await deps.clock.sleep(interval * 1000, signal);
    if (deps.clock.now() > deadline) throw new DeviceAuthError("expired_token", "the device code expired before the login was approved; run the login again");
    const { status, body } = await postForm(endpoints.token_endpoint, form, deps, signal);
    if (status === 200) return tokensFrom(body, deps.clock.now(), null);
    const code = body?.error;
    if (code === "authorization_pending") continue;
    if (code === "slow_down") {
      interval += 5; // RFC 8628 §3.5: for this and all subsequent requests
      continue;
    }
    if (code === "access_denied") throw new DeviceAuthError("access_denied", "the login was denied in the browser");
    if (code === "expired_token") throw new DeviceAuthError("expired_token", "the device code expired before the login was approved; run the login again");
    throw oauthError(status, body, form);
  }
}

export async function refreshDeviceTokens(endpoints: Pick<DeviceAuthEndpoints, "token_endpoint" | "client_id">, refreshToken: string, deps: DeviceFlowDeps, signal?: AbortSignal): Promise<DeviceTokens> {
  const form = { grant_type: "refresh_token", refresh_token: refreshToken, client_id: endpoints.client_id };
  const { status, body } = await postForm(endpoints.token_endpoint, form, deps, signal);
  if (status !== 200) throw oauthError(status, body, form);
  return tokensFrom(body, deps.clock.now(), refreshToken);
}
