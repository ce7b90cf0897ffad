// The OAuth endpoints (RFC 6749 token, RFC 8628 device authorization, RFC 7009 revocation, RFC 7591
// registration) and the RFC 8414 metadata at the root. Every response is JSON with no-store (the edge adds
// Pragma too); nothing ever redirects; errors are `{error, error_description}` and hide internals.
import { Elysia } from "elysia";
import { elysiaApp } from "../../util/elysia-app.ts";
import { UNAUTHORIZED_BODY } from "../auth/bearer.ts";
import { GRANT_TYPES, OAuthClientStore } from "../auth/oauth-clients.ts";
import type { GatewayContext } from "../context.ts";
import type { RateLimiter } from "../net/rate-limit.ts";
import { insufficientScope } from "../server/auth-guard.ts";
import { jsonResponse } from "../server/errors.ts";
import { requestMeta } from "../server/request-meta.ts";
import { ClientAuthenticator, type AuthenticatedClient } from "./client-auth.ts";
import { DeviceFlow } from "./device-flow.ts";
import { narrowScopes, NO_STORE, OAuthError, oauthInternalFailure, oauthJson, parseScope, readOAuthForm } from "./http.ts";
import { authorizationServerMetadata, metadataPaths, OAUTH_PREFIX } from "./metadata.ts";
import { parseRegistration, type Registrant, registerClient } from "./register.ts";
import { OAuthTokens, type TokenResponse } from "./tokens.ts";

const body = (type: string) => ({ content: { [type]: { schema: { type: "object" as const } } } });
const FORM_BODY = body("application/x-www-form-urlencoded");
const doc = (summary: string, description: string, requestBody = FORM_BODY) => ({
  parse: "none" as const,
  detail: { summary, description, tags: ["oauth"], security: [], requestBody },
});

/** What the OAuth routes use. */
export type OAuthRouteDeps = Pick<GatewayContext, "config" | "clock" | "db" | "audit" | "limiters" | "issuer" | "bearer" | "logger" | "streams">;

export function oauthRoutes(ctx: OAuthRouteDeps) {
  const clients = new ClientAuthenticator(ctx.db);
  const store = new OAuthClientStore(ctx.db, ctx.clock);
  const tokens = new OAuthTokens(ctx.db, ctx.clock, ctx.config.auth.oauth);
  const device = new DeviceFlow(ctx.db, ctx.clock, ctx.config.auth.oauth);

  /** Runs an endpoint: limiter first, OAuth errors as responses, anything else without internals (oauthInternalFailure). */
  const endpoint = (limiter: RateLimiter, work: (request: Request, ip: string) => Promise<Response> | Response) =>
    async ({ request }: { request: Request }): Promise<Response> => {
      const { ip, requestId } = requestMeta(request);
      const admission = limiter.admit(ip);
      if (!admission.allowed) return oauthJson(429, { error: "rate_limited", error_description: `too many requests; retry in ${admission.retryAfterSecs} seconds` }, { "Retry-After": String(admission.retryAfterSecs) });
      try {
        return await work(request, ip);
      } catch (error) {
        if (error instanceof OAuthError) return error.response();
        limiter.refund(ip, admission.at);
        return oauthInternalFailure(error, requestId, ctx.logger);
      }
    };

  const needsGrant = (client: AuthenticatedClient, grant: string) => {
    if (!client.grantTypes.includes(grant)) throw new OAuthError("unauthorized_client", "this client is not registered for that grant type");
  };

  const token = async (request: Request, ip: string): Promise<Response> => {
    const form = await readOAuthForm(request);
    const client = await clients.authenticate(request, form);
    const grantType = form.get("grant_type");
    let issued: TokenResponse;
    switch (grantType) {
      case undefined:
        throw new OAuthError("invalid_request", "grant_type is required");
      case GRANT_TYPES.device_code: {
        needsGrant(client, grantType);
        const code = form.get("device_code");
        if (!code) throw new OAuthError("invalid_request", "device_code is required");
        const { approved, grantId, tokens: t } = await device.redeem(
          client.id,
          code,
          async (replayed, principalId) => {
            await tokens.revokeGrant(replayed);
            await ctx.audit.record({ action: "oauth.device_code_reuse", outcome: "denied", principalId, sourceIp: ip, target: replayed, detail: `a redeemed device code was presented again by client ${client.id}; the grant it issued was revoked` });
            await ctx.streams.sweep();
          },
          async (tx, approved) => ({ approved, ...(await tokens.issueGrant(client.id, approved.principalId, approved.scopes, client.grantTypes.includes(GRANT_TYPES.refresh_token), approved.grantId, tx)) }),
        );
        await ctx.audit.record({ action: "oauth.token", outcome: "success", principalId: approved.principalId, sourceIp: ip, target: grantId, detail: `device_code grant for client ${client.id}; scopes: ${approved.scopes.join(" ")}` });
        issued = t;
        break;
      }
      case GRANT_TYPES.client_credentials: {
        if (client.clientType !== "confidential") throw new OAuthError("unauthorized_client", "client_credentials is for confidential clients");
        needsGrant(client, grantType);
        if (!client.principalId) throw new OAuthError("unauthorized_client", "this client has no machine principal any more; register it again");
        const registration = client.registration!;
        if (registration.state === "revoked") throw new OAuthError("invalid_grant", "the authority this client was registered with was revoked (a password change or a revoked grant); register a new client");
        if (registration.state === "unattributed") throw new OAuthError("invalid_grant", "this client was registered by an older gateway and the account that registered it is not known, so a password change could not revoke it; register a new client");
        const scopes = narrowScopes(parseScope(form.get("scope")), client.scopes);
        issued = await tokens.issueAccessBatched({ clientId: client.id, principalId: client.principalId, grantId: registration.state === "live" ? registration.grantId : null, scopes });
        break;
      }
      case GRANT_TYPES.refresh_token: {
        needsGrant(client, grantType);
        const refresh = form.get("refresh_token");
        if (!refresh) throw new OAuthError("invalid_request", "refresh_token is required");
        issued = await tokens.refresh(client.id, refresh, parseScope(form.get("scope")), async (grantId, principalId) => {
          await ctx.audit.record({ action: "oauth.refresh_reuse", outcome: "denied", principalId, sourceIp: ip, target: grantId, detail: `a rotated refresh token of client ${client.id} was presented again; the grant was revoked` });
          await ctx.streams.sweep();
        });
        break;
      }
      default:
        throw new OAuthError("unsupported_grant_type", `supported grant types: ${Object.values(GRANT_TYPES).join(", ")}`);
    }
    return oauthJson(200, issued);
  };

  const deviceAuthorization = async (request: Request): Promise<Response> => {
    const form = await readOAuthForm(request);
    const client = await clients.authenticate(request, form);
    needsGrant(client, GRANT_TYPES.device_code);
    const scopes = narrowScopes(parseScope(form.get("scope")), client.scopes);
    return oauthJson(200, await device.authorize(client.id, scopes, `${ctx.issuer}/device`));
  };

  const revoke = async (request: Request, ip: string): Promise<Response> => {
    const form = await readOAuthForm(request);
    const client = await clients.authenticate(request, form);
    const value = form.get("token");
    if (!value) throw new OAuthError("invalid_request", "token is required");
    // token_type_hint is advisory (RFC 7009 §2.1): both kinds are looked up whatever it says.
    const revoked = await tokens.revoke(client.id, value);
    if (revoked) {
      await ctx.audit.record({ action: `oauth.revoke_${revoked.kind}`, outcome: "success", principalId: revoked.principalId, sourceIp: ip, target: revoked.id, detail: `by client ${client.id}` });
      await ctx.streams.sweep();
    }
    // 200 with an empty body, also for unknown tokens and other clients' tokens (nothing to probe).
    return new Response(null, { status: 200, headers: NO_STORE });
  };

  const register = async (request: Request, ip: string): Promise<Response> => {
    const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json") throw new OAuthError("invalid_request", "registration requests are application/json");
    let body: unknown;
    try {
      body = JSON.parse(await request.text());
    } catch {
      throw new OAuthError("invalid_request", "the body is not valid JSON");
    }
    const parsed = parseRegistration(body);
    let registrant: Registrant = null;
    if (parsed.type === "confidential") {
      // Confidential clients get tokens with no human step: registering one takes an initial access token
      // (RFC 7591 §3) holding `machine`, e.g. a personal access token.
      const auth = await ctx.bearer.check(request.headers.get("authorization"));
      if (auth === "unauthorized") return jsonResponse(401, UNAUTHORIZED_BODY, { "WWW-Authenticate": 'Bearer realm="agent-gateway"', ...NO_STORE });
      if (auth === "unavailable") throw new OAuthError("server_error", "authentication is temporarily unavailable", 503);
      if (!auth.scopes.includes("machine")) {
        const error = insufficientScope(["machine"]);
        return jsonResponse(403, error.body(), { ...error.headers, ...NO_STORE });
      }
      registrant = { principalId: auth.principalId, scopes: auth.scopes };
    }
    const { client, body: out } = await registerClient(store, parsed, registrant);
    await ctx.audit.record({ action: "client.register", outcome: "success", principalId: registrant?.principalId ?? null, sourceIp: ip, target: client.id, detail: `dynamic registration (${client.clientType})` });
    return oauthJson(201, out);
  };

  const notAllowed = () => oauthJson(405, { error: "invalid_request", error_description: "use POST" }, { Allow: "POST" });
  const hidden = { detail: { hide: true } };
  const metadata = () => new Response(JSON.stringify(authorizationServerMetadata(ctx.issuer)), { headers: { "Content-Type": "application/json", "Cache-Control": "public, max-age=300" } });

  // Typed loosely: the routes are added in loops below, which Elysia's accumulated route types cannot follow.
  let app: Elysia<any, any, any, any, any, any, any> = elysiaApp({ name: "gateway-oauth" })
    .post(`${OAUTH_PREFIX}/token`, endpoint(ctx.limiters.oauthToken, token), doc("Token endpoint (RFC 6749)", "grant_type device_code, client_credentials or refresh_token; client_secret_basic or client_secret_post, never both. Refresh tokens rotate on every use; a reused one revokes its grant."))
    .post(`${OAUTH_PREFIX}/device_authorization`, endpoint(ctx.limiters.oauthResource, deviceAuthorization), doc("Start a device authorization (RFC 8628)", "Public clients send client_id and an optional scope (default: every scope registered for the client)."))
    .post(`${OAUTH_PREFIX}/revoke`, endpoint(ctx.limiters.oauthToken, revoke), doc("Revoke a token (RFC 7009)", "200 with an empty body, also for unknown tokens. Revoking a refresh token revokes its grant with its access tokens; streams opened with a revoked token are closed."))
    .post(`${OAUTH_PREFIX}/register`, endpoint(ctx.limiters.oauthResource, register), doc("Dynamic client registration (RFC 7591)", "JSON client metadata. Public device-flow clients by default; confidential (client_credentials) clients need `Authorization: Bearer` with the machine scope.", body("application/json")));
  for (const name of ["token", "device_authorization", "revoke", "register"]) app = app.get(`${OAUTH_PREFIX}/${name}`, notAllowed, hidden);
  for (const path of metadataPaths(ctx.config.auth.external_url ?? "http://localhost")) {
    app = app.get(path, metadata, { detail: { summary: "Authorization server metadata (RFC 8414)", tags: ["oauth"], security: [] } });
  }
  return app;
}
