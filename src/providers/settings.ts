// Inputs of the provider layer, field names mirroring the config spec (snake_case) so the resolved
// app config maps onto them one to one.
import type { AuthFormat, ProviderProtocol } from "./protocols.ts";
import type { CacheControlStrategy } from "./request.ts";
import type { DeviceLoginSource } from "./device-auth/endpoints.ts";

export type ProviderKindSettings =
  | { type: "catalog"; name: string }
  | { type: "custom_a_compatible" }
  | { type: "custom_b_compatible" }
  | { type: "custom_b_responses" };

export type ProviderAuthSettings =
  | { type: "no_auth" }
  | { type: "static_key"; key: string; format?: AuthFormat | null }
  | ({ type: "device_a"; profile: string } & DeviceLoginSource)
  | ({ type: "device_b"; profile: string } & DeviceLoginSource);

/** `providers.<name>` of the config. */
export interface ProviderSettings {
  kind: ProviderKindSettings;
  url?: string | null;
  auth?: ProviderAuthSettings | null;
  protocol?: ProviderProtocol | null;
  headers?: Record<string, string> | null;
  cache_control_strategy?: CacheControlStrategy | null;
}

/** What the built-in catalog says about a catalog provider (from src/providers/catalog.ts). */
export interface CatalogProviderDefaults {
  protocol: ProviderProtocol;
  url: string | null;
}

/** `daemon.retry`. */
export interface RetrySettings {
  max_retries: number;
  base_delay_ms: number;
  max_computed_delay_ms: number;
}

export const DEFAULT_RETRY: RetrySettings = Object.freeze({ max_retries: 3, base_delay_ms: 1000, max_computed_delay_ms: 60000 });

/** `daemon.provider_stream_*`; null/absent = built-in default (see stream-health.ts). */
export interface StreamSettings {
  provider_stream_idle_timeout_secs?: number | null;
  provider_stream_max_lifetime_secs?: number | null;
}
