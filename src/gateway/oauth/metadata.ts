// Authorization server metadata (RFC 8414) and the issuer identifier it names.
import { hostname } from "node:os";
import type { GatewayConfig } from "../config/types.ts";
import { ALL_SCOPES } from "../auth/bearer.ts";
import { GRANT_TYPES } from "../auth/oauth-clients.ts";

export const OAUTH_PREFIX = "/api/v1/oauth";
export const METADATA_PATH = "/.well-known/oauth-authorization-server";

/**
 * The issuer: `auth.external_url` when set (without a trailing slash), else the URL this server listens on
 * (the machine's hostname for a wildcard address). Never the request's Host header: clients compare the
 * issuer with the URL they started from, and a gateway reached by several names must answer one issuer.
 */
export function issuerUrl(config: GatewayConfig, port: number, tls: boolean): string {
  if (config.auth.external_url) return config.auth.external_url.replace(/\/+$/, "");
  const address = config.listen.address;
  const host = address === "0.0.0.0" || address === "::" ? hostname() : address.includes(":") ? `[${address}]` : address;
  return `${tls ? "https" : "http"}://${host}:${port}`;
}

export function authorizationServerMetadata(issuer: string): Record<string, unknown> {
  const endpoint = (name: string) => `${issuer}${OAUTH_PREFIX}/${name}`;
  return {
    issuer,
    token_endpoint: endpoint("token"),
    device_authorization_endpoint: endpoint("device_authorization"),
    registration_endpoint: endpoint("register"),
    revocation_endpoint: endpoint("revoke"),
    grant_types_supported: Object.values(GRANT_TYPES),
    response_types_supported: [],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    scopes_supported: [...ALL_SCOPES],
    service_documentation: `${issuer}/api/v1/openapi.json`,
  };
}

/** Where the metadata is served: at the root, plus `/.well-known/oauth-authorization-server/<path>` for an issuer with a path (RFC 8414 §3). */
export function metadataPaths(issuer: string): string[] {
  const path = new URL(issuer).pathname.replace(/\/+$/, "");
  return path ? [METADATA_PATH, `${METADATA_PATH}${path}`] : [METADATA_PATH];
}
