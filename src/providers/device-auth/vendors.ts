// Where the device logins of the spec (`device_a`, `device_b`) authorize: built-in per login kind, like
// the catalog. The config schema has no key for these endpoints, so a config cannot move them (see
// docs/decisions-providers.md). Vendor names are neutral letters and their hosts use the reserved
// `.example` domain, as every vendor default in this build does.
import type { DeviceAuthEndpoints, DeviceFlowDeps } from "./device-flow.ts";
import { type DeviceKind, DeviceProfileTokens } from "./profiles.ts";

export interface DeviceAuthVendor {
  kind: DeviceKind;
  /** The catalog provider whose account the login is for. */
  catalogProvider: string;
  summary: string;
  endpoints: DeviceAuthEndpoints;
}

export const DEVICE_AUTH_VENDORS: Readonly<Record<DeviceKind, DeviceAuthVendor>> = Object.freeze({
  device_a: {
    kind: "device_a",
    catalogProvider: "c",
    summary: "Device OAuth login of catalog vendor c (the coding-plan Responses backend)",
    endpoints: {
      device_authorization_endpoint: "https://auth.vendor-c.example/oauth/device/code",
      token_endpoint: "https://auth.vendor-c.example/oauth/token",
      client_id: "agent-cli",
      scope: "openid offline_access model.request",
    },
  },
  device_b: {
    kind: "device_b",
    catalogProvider: "k",
    summary: "Device-code OAuth login of catalog vendor k (the compatible-mode Chat Completions backend)",
    endpoints: {
      device_authorization_endpoint: "https://auth.vendor-k.example/api/v1/oauth2/device/code",
      token_endpoint: "https://auth.vendor-k.example/api/v1/oauth2/token",
      client_id: "agent-cli",
      scope: "openid profile offline_access model.completion",
    },
  },
});

/** The endpoints of a login kind; the daemon's refresh client and the login command both read this. */
export function deviceAuthEndpoints(kind: DeviceKind): DeviceAuthEndpoints {
  return DEVICE_AUTH_VENDORS[kind].endpoints;
}

/**
 * The daemon's token source for `device_a` / `device_b` providers (`devices` of the provider call and
 * model-listing deps): profiles under `<dataRoot>/auth`, or `authDir` when given (`agent daemon
 * --auth-dir`), refreshed at the built-in endpoints, through `daemon.tls.trust_store` when
 * `deps.trustStore` is given.
 */
export function deviceTokenSource(dataRoot: string, deps: DeviceFlowDeps, authDir?: string): DeviceProfileTokens {
  return new DeviceProfileTokens(dataRoot, deviceAuthEndpoints, deps, authDir);
}
