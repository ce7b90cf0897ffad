// Dynamic client registration (RFC 7591): JSON metadata in, 201 with what was stored (substituted values
// included) out. Unknown metadata is ignored. Clients are public device-flow clients unless they ask for
// client_credentials or a client_secret_* method; confidential clients must present an initial access
// token holding `machine` (the route checks it), since they get tokens with no human step. A confidential
// client's scopes are capped at that token's (decision 46 of docs/decisions-gateway.md): asking for more is
// refused with invalid_client_metadata naming the scope; asking for none gives the token's.
import { ALL_SCOPES } from "../auth/bearer.ts";
import { GRANT_TYPES, OAuthClientError, type ClientType, type OAuthClientInfo, type OAuthClientStore, type TokenEndpointAuthMethod } from "../auth/oauth-clients.ts";
import { OAuthError } from "./http.ts";

export interface RegistrationRequest {
  name: string | undefined;
  type: ClientType;
  grantTypes: string[] | undefined;
  /** The scopes asked for; undefined when the metadata names none (the default then applies). */
  scopes: string[] | undefined;
  authMethod: TokenEndpointAuthMethod;
}

const AUTH_METHODS: TokenEndpointAuthMethod[] = ["none", "client_secret_basic", "client_secret_post"];
const SUPPORTED_GRANTS: string[] = Object.values(GRANT_TYPES);

const invalid = (description: string) => new OAuthError("invalid_client_metadata", description);

function stringArray(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) throw invalid(`${field} must be an array of strings`);
  return value as string[];
}

/** Validates registration metadata (RFC 7591 §2) against what this server supports. */
export function parseRegistration(body: unknown): RegistrationRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("the body must be a JSON object of client metadata");
  const m = body as Record<string, unknown>;
  const redirects = stringArray(m.redirect_uris, "redirect_uris");
  if (redirects && redirects.length > 0) throw new OAuthError("invalid_redirect_uri", "this server has no redirect-based grants (device_code and client_credentials only); omit redirect_uris");
  const responseTypes = stringArray(m.response_types, "response_types");
  if (responseTypes && responseTypes.length > 0) throw invalid("response_types must be empty: this server has no authorization endpoint");
  let name: string | undefined;
  if (m.client_name !== undefined && m.client_name !== null) {
    if (typeof m.client_name !== "string" || m.client_name.trim() === "" || m.client_name.length > 100 || /[\u0000-\u001f\u007f]/.test(m.client_name)) throw invalid("client_name must be 1-100 printable characters");
    name = m.client_name.trim();
  }
  const grantTypes = stringArray(m.grant_types, "grant_types");
  const unsupported = grantTypes?.find((g) => !SUPPORTED_GRANTS.includes(g));
  if (unsupported !== undefined) throw invalid(`unsupported grant type; supported: ${SUPPORTED_GRANTS.join(", ")}`);
  let authMethod: TokenEndpointAuthMethod | undefined;
  if (m.token_endpoint_auth_method !== undefined && m.token_endpoint_auth_method !== null) {
    if (!AUTH_METHODS.includes(m.token_endpoint_auth_method as TokenEndpointAuthMethod)) throw invalid(`token_endpoint_auth_method must be one of ${AUTH_METHODS.join(", ")}`);
    authMethod = m.token_endpoint_auth_method as TokenEndpointAuthMethod;
  }
  const wantsCredentials = grantTypes?.includes(GRANT_TYPES.client_credentials) ?? false;
  if (wantsCredentials && authMethod === "none") throw invalid("client_credentials needs a confidential client: token_endpoint_auth_method 'none' cannot be used with it");
  const type: ClientType = wantsCredentials || (authMethod !== undefined && authMethod !== "none") ? "confidential" : "public";
  if (type === "confidential" && grantTypes?.includes(GRANT_TYPES.device_code)) throw invalid("the device_code grant is for public clients (token_endpoint_auth_method 'none')");
  let scopes: string[] | undefined;
  if (m.scope !== undefined && m.scope !== null) {
    if (typeof m.scope !== "string") throw invalid("scope must be a space-separated string");
    const asked = [...new Set(m.scope.split(" ").filter(Boolean))];
    if (asked.some((s) => !(ALL_SCOPES as readonly string[]).includes(s))) throw invalid(`unknown scope; this server has: ${ALL_SCOPES.join(" ")}`);
    if (asked.length > 0) scopes = asked;
  }
  return { name, type, grantTypes, scopes, authMethod: authMethod ?? (type === "public" ? "none" : "client_secret_basic") };
}

/** Who registers: nobody for a public client; for a confidential one, the principal and scopes of its initial access token. */
export type Registrant = { principalId: string | null; scopes: readonly string[] } | null;

/**
 * The scopes a client is registered with: what it asked for, never more than the registering token holds.
 * A client that asked for none gets every scope (public) or the token's (confidential).
 */
export function registeredScopes(asked: string[] | undefined, registrant: Registrant): string[] {
  if (!registrant) return asked ?? [...ALL_SCOPES];
  const beyond = asked?.find((s) => !registrant.scopes.includes(s));
  if (beyond !== undefined)
    throw invalid(`scope '${beyond}' is not held by the access token that registers the client (it holds: ${registrant.scopes.join(" ") || "none"}); ask for at most those scopes, or register with a token that holds '${beyond}'`);
  return asked ?? ALL_SCOPES.filter((s) => registrant.scopes.includes(s));
}

/** Stores the client and renders the RFC 7591 §3.2.1 response body. */
export async function registerClient(store: OAuthClientStore, request: RegistrationRequest, registrant: Registrant = null): Promise<{ client: OAuthClientInfo; body: Record<string, unknown> }> {
  const scopes = registeredScopes(request.scopes, registrant);
  let created;
  try {
    created = await store.register(request.name ?? "unnamed client", request.type, request.grantTypes, scopes, request.authMethod, { via: "http", principalId: registrant?.principalId ?? undefined });
  } catch (error) {
    if (error instanceof OAuthClientError) throw invalid(error.message.replace(/["\\]/g, "'"));
    throw error;
  }
  const { client, secret } = created;
  const body: Record<string, unknown> = {
    client_id: client.id,
    client_id_issued_at: Math.floor(client.createdAt / 1000),
    client_name: client.name,
    grant_types: client.grantTypes,
    response_types: [],
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    scope: client.scopes.join(" "),
  };
  if (secret) {
    body.client_secret = secret;
    body.client_secret_expires_at = 0;
  }
  return { client, body };
}
