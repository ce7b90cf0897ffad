// `agent auth provider login --provider NAME`: the device login for a provider whose auth is
// device_a / device_b; stores the resulting profile under the data root.
import type { ProviderAuthSettings } from "../settings.ts";
import { type DeviceAuthEndpoints, type DeviceAuthorization, type DeviceFlowDeps, pollDeviceToken, requestDeviceAuthorization } from "./device-flow.ts";
import { type DeviceKind, saveProfile } from "./profiles.ts";

export interface DeviceLoginOptions {
  provider: string;
  auth: ProviderAuthSettings | null | undefined;
  endpoints: (kind: DeviceKind) => DeviceAuthEndpoints;
  dataRoot: string;
  deps: DeviceFlowDeps;
  /** Shows the user code and where to enter it (the CLI prints it; a TUI may render it). */
  show: (auth: DeviceAuthorization) => void;
  signal?: AbortSignal;
}

export class DeviceLoginConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeviceLoginConfigError";
  }
}

/** Runs the device login; returns the stored profile's path. */
export async function runDeviceLogin(opts: DeviceLoginOptions): Promise<{ path: string; profile: string; kind: DeviceKind }> {
  const auth = opts.auth;
  if (!auth || (auth.type !== "device_a" && auth.type !== "device_b"))
    throw new DeviceLoginConfigError(`provider '${opts.provider}' does not use device login (its auth type is ${auth?.type ?? "unset"}; expected device_a or device_b)`);
  const endpoints = opts.endpoints(auth.type);
  const grant = await requestDeviceAuthorization(endpoints, opts.deps, opts.signal);
  opts.show(grant);
  const tokens = await pollDeviceToken(endpoints, grant, opts.deps, opts.signal);
  const now = new Date(opts.deps.clock.now()).toISOString();
  const path = saveProfile(opts.dataRoot, { version: 1, kind: auth.type, profile: auth.profile, provider: opts.provider, tokens, created_at: now, updated_at: now });
  return { path, profile: auth.profile, kind: auth.type };
}
