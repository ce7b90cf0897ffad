// The SDK's OAuthClientProvider for one tool server: the SDK runs discovery, registration, PKCE, the code
// exchange and refresh; this class supplies our client metadata and keeps what the SDK hands back in the
// 0600 credential store. The PKCE verifier and `state` stay in memory: they live for one authorization.
import { randomBytes } from "node:crypto";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Static } from "@sinclair/typebox";
import type { McpRemoteAuth } from "../config/schema/mcp.ts";
import type { OAuthCredentialStore } from "./oauth-store.ts";
import type { McpClock } from "./types.ts";

export type OAuthConfig = Extract<Static<typeof McpRemoteAuth>, { type: "oauth" }>;

export class McpOAuthProvider implements OAuthClientProvider {
  /** The URL the user must open, set when the SDK decides an interactive authorization is needed. */
  pendingAuthorizationUrl?: URL;
  private verifier?: string;
  private currentState?: string;

  constructor(
    private readonly config: OAuthConfig,
    private readonly store: OAuthCredentialStore,
    private readonly clock: McpClock,
    /** The listener's URI (starting one when needed), or the configured fixed URI. */
    private readonly redirectUriSource: () => string,
  ) {}

  get redirectUrl(): string {
    return this.redirectUriSource();
  }

  get clientMetadataUrl(): string | undefined {
    return this.config.registration?.type === "client-metadata-url" ? this.config.registration.url : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    const registration = this.config.registration;
    const confidential = registration?.type === "pre-registered" && !!registration.client_secret;
    return {
      client_name: "agent",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: confidential ? "client_secret_basic" : "none",
      ...(this.config.scopes && this.config.scopes.length > 0 ? { scope: this.config.scopes.join(" ") } : {}),
    };
  }

  state(): string {
    this.currentState = randomBytes(16).toString("base64url");
    return this.currentState;
  }

  /** The state of the authorization in progress, which the callback must echo. */
  expectedState(): string | undefined {
    return this.currentState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const registration = this.config.registration;
    if (registration?.type === "pre-registered") {
      return { client_id: registration.client_id, ...(registration.client_secret ? { client_secret: registration.client_secret } : {}) };
    }
    const { client_information: stored, tokens } = this.store.read();
    if (registration?.type === "client-metadata-url" || !stored) return stored;
    // A dynamic registration names the redirect URI it was made for, and an ephemeral port differs each
    // time: a new interactive authorization registers again rather than being refused for an unknown
    // redirect_uri. While a refresh token exists the registration it belongs to is kept.
    const uris = (stored as { redirect_uris?: string[] }).redirect_uris ?? [];
    if (uris.length > 0 && !uris.includes(this.redirectUrl) && !tokens?.refresh_token) return undefined;
    return stored;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.store.update((c) => ({ ...c, client_information: info }));
  }

  /** A token known (by the session clock) to have expired is not sent; without a refresh token it is dropped. */
  tokens(): OAuthTokens | undefined {
    const tokens = this.store.read().tokens;
    if (tokens && !tokens.refresh_token && this.tokensExpired()) return undefined;
    return tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    const expiresAt = tokens.expires_in !== undefined ? this.clock.now() + tokens.expires_in * 1000 : undefined;
    this.store.update((c) => ({ ...c, tokens: { ...tokens, ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}) } }));
  }

  /** Whether the stored access token has expired by the session clock (a refresh is due before use). */
  tokensExpired(): boolean {
    const tokens = this.store.read().tokens;
    return tokens?.expires_at !== undefined && tokens.expires_at <= this.clock.now();
  }

  hasTokens(): boolean {
    return this.store.read().tokens !== undefined;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.pendingAuthorizationUrl = authorizationUrl;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error("no authorization is in progress for this server");
    return this.verifier;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "verifier") {
      this.verifier = undefined;
      return;
    }
    this.store.update((c) => ({
      server_url: c.server_url,
      ...(scope === "client" || scope === "all" ? {} : { client_information: c.client_information }),
      ...(scope === "tokens" || scope === "all" ? {} : { tokens: c.tokens }),
      ...(scope === "discovery" || scope === "all" ? {} : { discovery: c.discovery }),
    }));
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.store.update((c) => ({ ...c, discovery: state }));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.store.read().discovery;
  }
}
