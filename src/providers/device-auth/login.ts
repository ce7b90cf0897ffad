// `agent auth provider login --provider NAME`: the device login for a provider whose auth is
// device_a / device_b; stores the resulting profile (with where it was issued) under the data root.
import type { ProviderAuthSettings } from "../settings.ts";
import { type DeviceAuthorization, type DeviceFlowDeps, pollDeviceToken, requestDeviceAuthorization } from "./device-flow.ts";
import { type DeviceLoginEndpoints, DeviceLoginConfigError } from "./endpoints.ts";
import { type DeviceKind, profilePath, saveProfile } from "./profiles.ts";

export { DeviceLoginConfigError };

export interface DeviceLoginOptions {
  provider: string;
  auth: ProviderAuthSettings | null | undefined;
  /** Where this provider's login authorizes (resolveDeviceLogin); called once the profile name is known good. */
  endpoints: () => Promise<DeviceLoginEndpoints>;
  dataRoot: string;
  /** Profile to store the login under; default: the provider's configured `auth.profile`. */
  profile?: string;
  deps: DeviceFlowDeps;
  /** Shows the user code and where to enter it (the CLI prints it; a TUI may render it). */
  show: (auth: DeviceAuthorization) => void;
  signal?: AbortSignal;
}

/** Runs the device login; returns the stored profile's path. */
export async function runDeviceLogin(
  opts: DeviceLoginOptions,
): Promise<{ path: string; profile: string; kind: DeviceKind; expiresAt: number | null; refreshable: boolean; endpoints: DeviceLoginEndpoints }> {
  const auth = opts.auth;
  if (!auth || (auth.type !== "device_a" && auth.type !== "device_b"))
    throw new DeviceLoginConfigError(`provider '${opts.provider}' does not use device login (its auth type is ${auth?.type ?? "unset"}; expected device_a or device_b)`);
  const profile = opts.profile ?? auth.profile;
  try {
    profilePath(opts.dataRoot, profile); // refuse a bad name before the user approves anything
  } catch (error) {
    throw new DeviceLoginConfigError((error as Error).message);
  }
  const endpoints = await opts.endpoints();
  const grant = await requestDeviceAuthorization(endpoints, opts.deps, opts.signal);
  opts.show(grant);
  const tokens = await pollDeviceToken(endpoints, grant, opts.deps, opts.signal);
  const now = new Date(opts.deps.clock.now()).toISOString();
  const path = saveProfile(opts.dataRoot, {
    version: 1,
    kind: auth.type,
    profile,
    provider: opts.provider,
    issuer: endpoints.issuer,
    token_endpoint: endpoints.token_endpoint,
    client_id: endpoints.client_id,
    tokens,
    created_at: now,
    updated_at: now,
  });
  return { path, profile, kind: auth.type, expiresAt: tokens.expires_at, refreshable: tokens.refresh_token !== null, endpoints };
}
