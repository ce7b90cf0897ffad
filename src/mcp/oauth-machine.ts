// OAuth without a user at the browser, for one tool server: the client-credentials grant (SEP-1046, with
// client_secret_basic or private_key_jwt) and enterprise-managed cross-app access (SEP-990: the user's
// identity-provider ID token is exchanged for an identity assertion grant, then for the server's token).
// The SDK's auth() runs discovery and the token request; this provider says which grant and how the client
// authenticates. Secrets come from the config (usually ${VAR}) or files read at each connection; tokens
// stay in memory, since they can be obtained again at any time without anyone's help.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { createPrivateKeyJwtAuth } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Static } from "@sinclair/typebox";
import type { McpRemoteAuth } from "../config/schema/mcp.ts";
import type { McpClock } from "./types.ts";

type RemoteAuth = Static<typeof McpRemoteAuth>;
export type ClientCredentialsConfig = Extract<RemoteAuth, { type: "client-credentials" }>;
export type CrossAppAccessConfig = Extract<RemoteAuth, { type: "cross-app-access" }>;
export type MachineAuthConfig = ClientCredentialsConfig | CrossAppAccessConfig;

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag";

export function isMachineAuth(auth: RemoteAuth | undefined): auth is MachineAuthConfig {
  return auth?.type === "client-credentials" || auth?.type === "cross-app-access";
}

/** Reads a secret file named in the config (absolute or `~/`); its trailing newline is not part of it. */
export function readSecretFile(path: string, key: string): string {
  const resolved = path.startsWith("~/") ? `${homedir()}${path.slice(1)}` : path;
  try {
    return readFileSync(resolved, "utf8").replace(/\r?\n$/, "");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`cannot read ${key} ${path}${code ? ` (${code})` : ""}`);
  }
}

function secretOf(value: string | undefined, file: string | undefined, key: string): string | undefined {
  return value ?? (file !== undefined ? readSecretFile(file, `${key}_file`) : undefined);
}

export class McpMachineAuthProvider implements OAuthClientProvider {
  private stored?: OAuthTokens & { expires_at?: number };
  private discovery?: OAuthDiscoveryState;
  private bound?: OAuthClientInformationMixed;
  /** Secrets read so far (config values and file contents), so reasons and logs can leave them out. */
  readonly readSecrets = new Set<string>();
  readonly addClientAuthentication?: OAuthClientProvider["addClientAuthentication"];

  constructor(
    private readonly config: MachineAuthConfig,
    private readonly clock: McpClock,
    private readonly fetchFn: typeof fetch = fetch,
  ) {
    if (config.type === "client-credentials" && (config.private_key !== undefined || config.private_key_file !== undefined)) {
      const sign = (privateKey: string) =>
        createPrivateKeyJwtAuth({ issuer: config.client_id, subject: config.client_id, privateKey, alg: config.signing_algorithm ?? "RS256" });
      this.addClientAuthentication = (headers, params, url, metadata) =>
        sign(this.remember(secretOf(config.private_key, config.private_key_file, "private_key")!))(headers, params, url, metadata);
    }
  }

  /** Non-interactive: the SDK fetches a token directly instead of sending anyone to a browser. */
  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    const jwt = this.addClientAuthentication !== undefined;
    return {
      client_name: "agent",
      redirect_uris: [],
      grant_types: [this.config.type === "client-credentials" ? "client_credentials" : JWT_BEARER],
      token_endpoint_auth_method: jwt ? "private_key_jwt" : "client_secret_basic",
      ...(this.config.scopes && this.config.scopes.length > 0 ? { scope: this.config.scopes.join(" ") } : {}),
    };
  }

  clientInformation(): OAuthClientInformationMixed {
    if (this.bound) return this.bound;
    const secret = this.addClientAuthentication ? undefined : this.remember(secretOf(this.config.client_secret, this.config.client_secret_file, "client_secret"));
    const issuer = this.config.type === "client-credentials" ? this.config.authorization_server : undefined;
    return { client_id: this.config.client_id, ...(secret ? { client_secret: secret } : {}), ...(issuer ? { issuer } : {}) } as OAuthClientInformationMixed;
  }

  /** The SDK binds the configured client to the first authorization server that accepted it (for this session). */
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.bound = info;
  }

  tokens(): OAuthTokens | undefined {
    if (this.stored?.expires_at !== undefined && this.stored.expires_at <= this.clock.now()) return undefined;
    return this.stored;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.remember(tokens.access_token);
    this.stored = { ...tokens, ...(tokens.expires_in !== undefined ? { expires_at: this.clock.now() + tokens.expires_in * 1000 } : {}) };
  }

  redirectToAuthorization(): void {
    throw new Error("this server's auth needs no browser; an authorization page was not expected");
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new Error("no authorization code flow is used with this server's auth");
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "tokens") this.stored = undefined;
    if (scope === "all" || scope === "client") this.bound = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    const params = new URLSearchParams(
      this.config.type === "client-credentials" ? { grant_type: "client_credentials" } : { grant_type: JWT_BEARER, assertion: await this.identityAssertionGrant(scope) },
    );
    if (scope) params.set("scope", scope);
    return params;
  }

  /**
   * SEP-990 step one: the identity provider exchanges the user's ID token (RFC 8693) for an identity
   * assertion grant whose audience is the tool server's authorization server and whose resource is the
   * tool server, both as discovery found them.
   */
  private async identityAssertionGrant(scope: string | undefined): Promise<string> {
    const config = this.config as CrossAppAccessConfig;
    const idp = config.idp;
    const audience = this.discovery?.authorizationServerMetadata?.issuer ?? this.discovery?.authorizationServerUrl;
    const resource = this.discovery?.resourceMetadata?.resource;
    if (!audience || !resource) throw new Error("the tool server did not name its authorization server and resource (protected resource metadata)");
    const idToken = this.remember(secretOf(idp.id_token, idp.id_token_file, "idp.id_token"));
    if (!idToken) throw new Error("no ID token from the identity provider: set idp.id_token or idp.id_token_file");
    const body = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      requested_token_type: ID_JAG_TYPE,
      subject_token: idToken,
      subject_token_type: ID_TOKEN_TYPE,
      audience,
      resource,
      client_id: idp.client_id,
    });
    const secret = this.remember(secretOf(idp.client_secret, idp.client_secret_file, "idp.client_secret"));
    if (secret) body.set("client_secret", secret);
    if (scope) body.set("scope", scope);
    const response = await this.fetchFn(idp.token_endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body,
    });
    const json = (await response.json().catch(() => ({}))) as { access_token?: string; issued_token_type?: string; error?: string; error_description?: string };
    if (!response.ok || !json.access_token) {
      const why = json.error ? `${json.error}${json.error_description ? `: ${json.error_description}` : ""}` : `HTTP ${response.status}`;
      throw new Error(`the identity provider refused the token exchange (${why})`);
    }
    if (json.issued_token_type && json.issued_token_type !== ID_JAG_TYPE) {
      throw new Error(`the identity provider issued a ${json.issued_token_type}, not an identity assertion grant`);
    }
    return this.remember(json.access_token)!;
  }

  private remember<T extends string | undefined>(value: T): T {
    if (value) this.readSecrets.add(value);
    return value;
  }
}
