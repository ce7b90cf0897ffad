// The daemon's token source for device logins. Where a login authorizes is resolved at login time
// (src/providers/device-auth/endpoints.ts) and saved in the profile, so the daemon refreshes at the
// token endpoint the profile came from and needs no discovery on the request path.
import type { DeviceFlowDeps } from "./device-flow.ts";
import { DeviceProfileTokens } from "./profiles.ts";

/**
 * The token source for `device_a` / `device_b` providers (`devices` of the provider call and
 * model-listing deps): profiles under `<dataRoot>/auth`, or `authDir` when given (`agent daemon
 * --auth-dir`), refreshed through `daemon.tls.trust_store` when `deps.trustStore` is given.
 */
export function deviceTokenSource(dataRoot: string, deps: DeviceFlowDeps, authDir?: string): DeviceProfileTokens {
  return new DeviceProfileTokens(dataRoot, deps, authDir);
}
