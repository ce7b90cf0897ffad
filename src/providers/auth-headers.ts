// Auth header formats of provider auth, and the header merge rule: protocol defaults, then the
// provider's configured `headers`, then the headers the agent sets per request (which win).
import type { AuthFormat } from "./protocols.ts";
import type { ProviderAuthSettings } from "./settings.ts";
import { ProviderError } from "./errors.ts";

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export class ProviderHeaderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProviderHeaderError";
  }
}

/** The header carrying `secret` in `format`. */
export function authHeader(format: AuthFormat, secret: string): [string, string] {
  switch (format) {
    case "bearer_token":
      return ["authorization", `Bearer ${secret}`];
    case "a_x_api_key":
      return ["x-api-key", secret];
    case "c_api_key":
      return ["api-key", secret];
  }
}

/** Supplies access tokens of device-login profiles (refreshing them before expiry). */
export interface DeviceTokenSource {
  accessToken(kind: "device_a" | "device_b", profile: string): Promise<string>;
}

export interface ResolvedAuth {
  headers: Record<string, string>;
  /** Values to scrub from any error text or report. */
  secrets: string[];
}

export async function resolveAuth(
  auth: ProviderAuthSettings | null | undefined,
  format: AuthFormat | null,
  devices: DeviceTokenSource | null,
): Promise<ResolvedAuth> {
  if (!auth || auth.type === "no_auth") return { headers: {}, secrets: [] };
  if (auth.type === "static_key") {
    const key = auth.key.trim();
    if (key.length === 0) throw new ProviderError({ kind: "auth", code: "missing_key", message: "static_key auth has an empty key (is its ${ENV_VAR} set?)" });
    const [name, value] = authHeader(auth.format ?? format ?? "bearer_token", key);
    return { headers: { [name]: value }, secrets: [key] };
  }
  if (!devices)
    throw new ProviderError({
      kind: "auth",
      code: "device_login_unavailable",
      message: `auth profile '${auth.profile}' (${auth.type}) needs device login, which this build does not provide`,
    });
  const token = await devices.accessToken(auth.type, auth.profile);
  return { headers: { authorization: `Bearer ${token}` }, secrets: [token] };
}

/** Validates configured header names; throws naming the offending header. */
export function validateHeaderNames(headers: Record<string, string>): void {
  for (const name of Object.keys(headers)) {
    if (!HEADER_NAME.test(name)) throw new ProviderHeaderError(`header name '${name}' is not a valid HTTP header name`);
  }
}

/** Later layers win; names compared case-insensitively, emitted lower-case. */
export function mergeHeaders(...layers: (Record<string, string> | null | undefined)[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [k, v] of Object.entries(layer)) out[k.toLowerCase()] = v;
  }
  return out;
}
