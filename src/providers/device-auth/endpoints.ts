// Where a device login authorizes: the provider config's auth block, over the catalog entry's device
// login (if it has one). Either both endpoint URLs are given, or an issuer whose RFC 8414 metadata
// names them (OpenID discovery as a fallback). The client id is always the user's or the catalog's own:
// no vendor's OAuth client id is borrowed, so a login without one is refused with what to set.
import type { DeviceAuthEndpoints, DeviceFlowDeps } from "./device-flow.ts";
import { DeviceAuthError } from "./device-flow.ts";
import type { FetchLike } from "../http.ts";
import { fetchTlsOptions } from "../tls.ts";
import { USER_AGENT } from "../user-agent.ts";

/** The device-login fields of a provider's `auth` (device_a / device_b) or of a catalog entry. */
export interface DeviceLoginSource {
  issuer?: string | null;
  device_authorization_endpoint?: string | null;
  token_endpoint?: string | null;
  client_id?: string | null;
  scope?: string | null;
}

/** Resolved endpoints plus the issuer they came from (null when both URLs were explicit). */
export interface DeviceLoginEndpoints extends DeviceAuthEndpoints {
  issuer: string | null;
}

export class DeviceLoginConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeviceLoginConfigError";
  }
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/i;

/** HTTPS, or plain HTTP to this machine only (a local authorization server, tests). */
function checkUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DeviceLoginConfigError(`${what} '${value}' is not a URL`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK.test(url.hostname)))
    throw new DeviceLoginConfigError(`${what} '${value}' must be an https:// URL (plain http only to 127.0.0.1, [::1] or localhost)`);
  if (url.hash) throw new DeviceLoginConfigError(`${what} '${value}' must not have a #fragment`);
  return url;
}

const set = (v: string | null | undefined): v is string => typeof v === "string" && v.trim().length > 0;

/** RFC 8414 §3.1: the well-known segment goes between the host and the issuer's path. OIDC appends it. */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, "");
  return [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${url.origin}${path}/.well-known/openid-configuration`];
}

async function getJson(url: string, deps: DeviceFlowDeps, signal?: AbortSignal): Promise<{ status: number; body: any }> {
  const doFetch: FetchLike = deps.fetch ?? ((input, init) => fetch(input, init as RequestInit));
  const tls = fetchTlsOptions(deps.trustStore ?? null);
  let res: Response;
  try {
    res = await doFetch(url, { method: "GET", headers: { accept: "application/json", "user-agent": USER_AGENT }, redirect: "manual", signal, ...(tls ? { tls } : {}) });
  } catch (error) {
    throw new DeviceAuthError("network", `could not reach ${new URL(url).origin}: ${(error as Error).message}`);
  }
  let body: any = null;
  try {
    body = JSON.parse(await res.text());
  } catch {
    // a page that is not JSON is not metadata; the caller says so
  }
  return { status: res.status, body };
}

/** Authorization server metadata of `issuer`: device and token endpoints, checked against the issuer. */
export async function discoverDeviceEndpoints(issuer: string, deps: DeviceFlowDeps, signal?: AbortSignal): Promise<{ device_authorization_endpoint: string; token_endpoint: string }> {
  checkUrl(issuer, "issuer");
  const want = issuer.replace(/\/+$/, "");
  const tried: string[] = [];
  for (const url of metadataUrls(issuer)) {
    const { status, body } = await getJson(url, deps, signal);
    if (status !== 200 || typeof body !== "object" || body === null) {
      tried.push(`${url} (HTTP ${status}${status === 200 ? ", not JSON" : ""})`);
      continue;
    }
    // RFC 8414 §3.3: the metadata's issuer must be the one we asked, or it may not be trusted.
    if (typeof body.issuer !== "string" || body.issuer.replace(/\/+$/, "") !== want)
      throw new DeviceLoginConfigError(`the metadata at ${url} names issuer '${String(body.issuer)}', not '${want}'; check the issuer URL`);
    if (!set(body.device_authorization_endpoint))
      throw new DeviceLoginConfigError(`issuer '${want}' offers no device login (its metadata at ${url} has no device_authorization_endpoint)`);
    if (!set(body.token_endpoint)) throw new DeviceLoginConfigError(`issuer '${want}' metadata at ${url} has no token_endpoint`);
    checkUrl(body.device_authorization_endpoint, "device_authorization_endpoint of the issuer's metadata");
    checkUrl(body.token_endpoint, "token_endpoint of the issuer's metadata");
    return { device_authorization_endpoint: body.device_authorization_endpoint, token_endpoint: body.token_endpoint };
  }
  throw new DeviceLoginConfigError(`no authorization server metadata for issuer '${want}' (tried ${tried.join(", ")})`);
}

/**
 * The endpoints of provider `provider`'s device login: each field from its config when set, else from the
 * catalog entry. Discovery runs only when an endpoint URL is missing and an issuer is known.
 */
export async function resolveDeviceLogin(
  provider: string,
  configured: DeviceLoginSource,
  catalog: DeviceLoginSource | null | undefined,
  deps: DeviceFlowDeps,
  signal?: AbortSignal,
): Promise<DeviceLoginEndpoints> {
  const pick = <K extends keyof DeviceLoginSource>(k: K) => (set(configured[k]) ? configured[k]!.trim() : set(catalog?.[k]) ? catalog![k]!.trim() : null);
  const where = `providers.${provider}.auth`;
  const clientId = pick("client_id");
  const issuer = pick("issuer");
  let device = pick("device_authorization_endpoint");
  let token = pick("token_endpoint");
  if (!clientId || (!issuer && !(device && token))) {
    const missing = [!clientId && "client_id", !issuer && !(device && token) && "issuer (or device_authorization_endpoint and token_endpoint)"].filter(Boolean).join(" and ");
    throw new DeviceLoginConfigError(
      `provider '${provider}' has no device login server: set ${missing} in ${where} (the OAuth client registered for you at the provider's authorization server; the agent borrows no vendor's client id)`,
    );
  }
  if (device) checkUrl(device, `${where}.device_authorization_endpoint`);
  if (token) checkUrl(token, `${where}.token_endpoint`);
  if (!device || !token) {
    const found = await discoverDeviceEndpoints(issuer!, deps, signal);
    device ??= found.device_authorization_endpoint;
    token ??= found.token_endpoint;
  }
  return { issuer: issuer ? issuer.replace(/\/+$/, "") : null, device_authorization_endpoint: device, token_endpoint: token, client_id: clientId, scope: pick("scope") };
}
