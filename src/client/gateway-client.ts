// OAuth tokens for talking to an agent gateway: the device flow (what `agent connect` uses: show the
// verification URL and code, poll honouring `interval` and `slow_down`), client_credentials for machines,
// and refresh before expiry. Tokens live per gateway host in GatewayTokenStore (0600). Errors name the
// OAuth error code and never carry a token or secret.
import type { Env } from "../config/files.ts";
import type { OAuthTokenResponse } from "../protocol/oauth-token.ts";
import { GatewayTokenStore, type StoredGatewayTokens } from "./gateway-token-store.ts";

export const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
/** Refresh this long before the access token expires, so a request never carries a token about to die. */
export const REFRESH_MARGIN_MS = 60_000;

export class GatewayAuthError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = "GatewayAuthError";
  }
}

export interface DeviceCodePrompt {
  verificationUri: string;
  verificationUriComplete?: string;
  userCode: string;
  expiresInSecs: number;
}

export interface GatewayClientOptions {
  /** Base URL of the gateway, e.g. `https://build-host:19870`. */
  baseUrl: string;
  env: Env;
  /** A fetch with the connection's TLS settings (pinning is the caller's business). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** The name shown on the approval page when this client registers itself. */
  clientName?: string;
}

/** What the token endpoint answers (read defensively: `keep` checks the fields it relies on). */
type TokenBody = OAuthTokenResponse;

export class GatewayClient {
  readonly store: GatewayTokenStore;
  private readonly base: string;
  private readonly fetch: NonNullable<GatewayClientOptions["fetch"]>;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private inFlight: Promise<string> | undefined;

  constructor(private readonly options: GatewayClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, "");
    this.store = new GatewayTokenStore(options.env);
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => Bun.sleep(ms));
  }

  /** Signs in through the device flow; `prompt` shows the person where to approve. Stores the tokens. */
  async deviceLogin(prompt: (p: DeviceCodePrompt) => void, scope?: string): Promise<StoredGatewayTokens> {
    const clientId = await this.deviceClientId();
    const started = (await this.post("device_authorization", { client_id: clientId, ...(scope ? { scope } : {}) })) as Record<string, unknown>;
    if (typeof started.device_code !== "string" || typeof started.user_code !== "string" || typeof started.verification_uri !== "string") {
      throw new GatewayAuthError("invalid_response", "the gateway's device authorization response lacks device_code, user_code or verification_uri");
    }
    prompt({
      verificationUri: started.verification_uri,
      verificationUriComplete: typeof started.verification_uri_complete === "string" ? started.verification_uri_complete : undefined,
      userCode: started.user_code,
      expiresInSecs: Number(started.expires_in) || 0,
    });
    // RFC 8628 §3.5: without an interval the client uses 5 s; slow_down adds 5 s for good.
    let interval = Number(started.interval) > 0 ? Number(started.interval) : 5;
    for (;;) {
      await this.sleep(interval * 1000);
      try {
        const body = (await this.post("token", { grant_type: DEVICE_GRANT, client_id: clientId, device_code: started.device_code })) as TokenBody;
        return this.keep({ device_client_id: clientId, client_id: clientId, grant: "device_code" }, body);
      } catch (error) {
        if (!(error instanceof GatewayAuthError)) throw error;
        if (error.code === "authorization_pending") continue;
        if (error.code === "slow_down") {
          interval += 5;
          continue;
        }
        if (error.code === "access_denied") throw new GatewayAuthError("access_denied", "the request was denied on the gateway's approval page");
        if (error.code === "expired_token") throw new GatewayAuthError("expired_token", "the code expired before it was approved; sign in again");
        throw error;
      }
    }
  }

  /**
   * Signs in with a username and password (or a PAM account) at `POST /api/v1/auth/login`: a grant of this
   * machine's public client, refreshed like a device sign-in. Stores the tokens. A wrong username or
   * password is `invalid_credentials`; a locked-out source is `rate_limited` with the wait in the message.
   */
  async passwordLogin(username: string, password: string, retried = false): Promise<StoredGatewayTokens> {
    const clientId = await this.deviceClientId();
    const res = await this.fetch(`${this.base}/api/v1/auth/login`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ client_id: clientId, username, password }),
    });
    const body = (await readJson(res)) as Record<string, unknown>;
    if (res.status === 401 && body.error === "unauthorized") throw new GatewayAuthError("invalid_credentials", "wrong username or password");
    if (res.status === 401 && body.error === "invalid_client" && !retried) {
      // The gateway forgot the client registered earlier (a new database): register a new one, once.
      this.store.save(this.base, { ...this.store.load(this.base), device_client_id: undefined });
      return this.passwordLogin(username, password, true);
    }
    if (res.status !== 200) throw errorFrom(res.status, body, "sign-in");
    return this.keep({ device_client_id: clientId, client_id: clientId, grant: "password" }, body as unknown as TokenBody);
  }

  /** Gets a token with client_credentials (a confidential client's id and secret). Stores the token. */
  async clientCredentials(clientId: string, clientSecret: string, scope?: string): Promise<StoredGatewayTokens> {
    const body = (await this.post("token", { grant_type: "client_credentials", ...(scope ? { scope } : {}) }, basicAuth(clientId, clientSecret))) as TokenBody;
    return this.keep({ ...this.store.load(this.base), client_id: clientId, grant: "client_credentials", refresh_token: undefined }, body);
  }

  /**
   * A usable access token: the stored one while it has more than a minute left, else a refreshed one
   * (device grants) or a new one (client_credentials, when the secret is given). Throws `login_required`.
   */
  async accessToken(clientSecret?: string): Promise<string> {
    // One refresh at a time: two concurrent refreshes with one token would look like reuse to the gateway,
    // which then revokes the whole grant.
    this.inFlight ??= this.freshToken(clientSecret).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async freshToken(clientSecret?: string): Promise<string> {
    const stored = this.store.load(this.base);
    if (stored.access_token && (stored.expires_at ?? 0) - this.now() > REFRESH_MARGIN_MS) return stored.access_token;
    if (stored.refresh_token && stored.client_id) {
      try {
        const body = (await this.post("token", { grant_type: "refresh_token", client_id: stored.client_id, refresh_token: stored.refresh_token })) as TokenBody;
        return this.keep(stored, body).access_token!;
      } catch (error) {
        if (!(error instanceof GatewayAuthError) || error.code !== "invalid_grant") throw error;
        this.store.save(this.base, { device_client_id: stored.device_client_id });
        throw new GatewayAuthError("login_required", "the gateway no longer accepts the stored sign-in (revoked or expired); sign in again");
      }
    }
    if (stored.grant === "client_credentials" && stored.client_id && clientSecret) return (await this.clientCredentials(stored.client_id, clientSecret)).access_token!;
    throw new GatewayAuthError("login_required", `not signed in to ${this.base}`);
  }

  /** Revokes the stored grant on the gateway (best effort) and forgets the tokens. */
  async signOut(): Promise<void> {
    const stored = this.store.load(this.base);
    const token = stored.refresh_token ?? stored.access_token;
    if (token && stored.client_id && (stored.grant === "device_code" || stored.grant === "password")) {
      await this.post("revoke", { client_id: stored.client_id, token }).catch(() => undefined);
    }
    this.store.save(this.base, { device_client_id: stored.device_client_id });
  }

  /** The public client this machine registered on the gateway (registered on first use). */
  private async deviceClientId(): Promise<string> {
    const stored = this.store.load(this.base);
    if (stored.device_client_id) return stored.device_client_id;
    const res = await this.fetch(`${this.base}/api/v1/oauth/register`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ client_name: this.options.clientName ?? "agent", grant_types: [DEVICE_GRANT, "refresh_token"], token_endpoint_auth_method: "none" }),
    });
    const body = (await readJson(res)) as { client_id?: unknown };
    if (res.status !== 201 || typeof body.client_id !== "string") throw errorFrom(res.status, body, "client registration");
    this.store.save(this.base, { ...stored, device_client_id: body.client_id });
    return body.client_id;
  }

  private keep(base: StoredGatewayTokens, body: TokenBody): StoredGatewayTokens {
    if (typeof body.access_token !== "string" || body.token_type?.toLowerCase() !== "bearer") throw new GatewayAuthError("invalid_response", "the gateway's token response lacks a bearer access_token");
    const tokens: StoredGatewayTokens = {
      ...base,
      access_token: body.access_token,
      expires_at: this.now() + (body.expires_in ?? 900) * 1000,
      refresh_token: body.refresh_token ?? (base.grant !== "client_credentials" ? base.refresh_token : undefined),
      scope: body.scope,
    };
    this.store.save(this.base, tokens);
    return tokens;
  }

  private async post(endpoint: string, form: Record<string, string>, authorization?: string): Promise<unknown> {
    const res = await this.fetch(`${this.base}/api/v1/oauth/${endpoint}`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json", ...(authorization ? { Authorization: authorization } : {}) },
      body: new URLSearchParams(form).toString(),
    });
    const body = await readJson(res);
    if (res.status !== 200) throw errorFrom(res.status, body, endpoint);
    return body;
  }
}

function basicAuth(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString("base64")}`;
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

function errorFrom(status: number, body: unknown, what: string): GatewayAuthError {
  const b = (body ?? {}) as { error?: unknown; error_description?: unknown };
  const code = typeof b.error === "string" ? b.error : `http_${status}`;
  const detail = typeof b.error_description === "string" ? `: ${b.error_description}` : "";
  return new GatewayAuthError(code, `gateway ${what} failed (${status} ${code})${detail}`);
}
