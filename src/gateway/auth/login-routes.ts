// Sign-in for terminal clients (`agent connect`, gateway.md client rule 3): which methods this gateway
// offers, and username + password (or PAM) exchanged for OAuth tokens. The tokens are an ordinary OAuth
// grant of the caller's public client (the one it registered for the device flow), so refresh, rotation,
// revocation and the dashboard's grant list work as for a device sign-in. The check is the web login's
// (verifyLogin: the login limiter first, Argon2id or PAM, audit); a wrong username or password is the
// byte-identical 401 of every authentication failure.
import { t } from "elysia";
import { elysiaApp } from "../../util/elysia-app.ts";
import { OAuthTokenResponseSchema as TokenBody } from "../../protocol/oauth-token.ts";
import { UNAUTHORIZED_BODY } from "./bearer.ts";
import { type LoginDeps, verifyLogin } from "./login.ts";
import { GRANT_TYPES } from "./oauth-clients.ts";
import type { GatewayContext } from "../context.ts";
import { ClientAuthenticator } from "../oauth/client-auth.ts";
import { NO_STORE, OAuthError, oauthJson } from "../oauth/http.ts";
import { OAuthTokens } from "../oauth/tokens.ts";
import { jsonResponse } from "../server/errors.ts";
import { requestMeta } from "../server/request-meta.ts";

export const AUTH_PREFIX = "/api/v1/auth";

const Methods = t.Object({
  methods: t.Array(t.Union([t.Literal("password"), t.Literal("pam"), t.Literal("device")]), {
    description: "password: username and password at POST /api/v1/auth/login; pam: the same route checks system accounts bound to principals; device: the OAuth device flow",
  }),
});
const OAuthErrorBody = t.Object({ error: t.String(), error_description: t.Optional(t.String()) });

export type LoginRouteDeps = LoginDeps & Pick<GatewayContext, "db" | "clock" | "config" | "audit" | "pam">;

export function loginRoutes(ctx: LoginRouteDeps) {
  const clients = new ClientAuthenticator(ctx.db);
  const tokens = new OAuthTokens(ctx.db, ctx.clock, ctx.config.auth.oauth);
  const tags = ["auth"];
  return elysiaApp({ name: "gateway-cli-login" })
    .get(`${AUTH_PREFIX}/methods`, () => ({ methods: [...(["password"] as const), ...(ctx.pam ? (["pam"] as const) : []), "device" as const] }), {
      response: { 200: Methods },
      detail: { summary: "Sign-in methods of this gateway", description: "No token needed. `agent connect` reads it to choose between a username/password prompt and the device flow.", tags, security: [] },
    })
    .post(
      `${AUTH_PREFIX}/login`,
      async ({ request, body }) => {
        const { ip } = requestMeta(request);
        try {
          const client = await clients.authenticate(request, new Map([["client_id", body.client_id]]));
          if (client.clientType !== "public") throw new OAuthError("unauthorized_client", "sign in with a public client (the one registered for the device flow)");
          const result = await verifyLogin(ctx, body.username, body.password, ip);
          if (!result.ok && result.reason === "locked") {
            return oauthJson(429, { error: "rate_limited", error_description: `too many failed sign-ins; retry in ${result.retryAfterSecs} seconds` }, { "Retry-After": String(result.retryAfterSecs) });
          }
          if (!result.ok) return jsonResponse(401, UNAUTHORIZED_BODY, { ...NO_STORE, "WWW-Authenticate": 'Bearer realm="agent-gateway"' });
          const { grantId, tokens: issued } = await tokens.issueGrant(client.id, result.principal.id, client.scopes, client.grantTypes.includes(GRANT_TYPES.refresh_token));
          await ctx.audit.record({ action: "oauth.token", outcome: "success", principalId: result.principal.id, sourceIp: ip, target: grantId, detail: `${result.method} sign-in for client ${client.id}; scopes: ${client.scopes.join(" ")}` });
          return oauthJson(200, issued);
        } catch (error) {
          if (error instanceof OAuthError) return error.response();
          throw error;
        }
      },
      {
        body: t.Object({ client_id: t.String({ maxLength: 64 }), username: t.String({ minLength: 1, maxLength: 256 }), password: t.String({ minLength: 1, maxLength: 4096 }) }, { additionalProperties: false }),
        response: { 200: TokenBody, 400: OAuthErrorBody, 401: t.Union([t.Object({ error: t.Literal("unauthorized") }), OAuthErrorBody]), 422: t.Any(), 429: OAuthErrorBody, 503: t.Any() },
        detail: {
          summary: "Sign in with username and password",
          description:
            "For terminal clients. `client_id` is a public client of the caller (registered at /api/v1/oauth/register); the answer is an OAuth token response for a new grant with the client's scopes, with a rotating refresh token when the client may refresh. Password or PAM, as on the web login; the login limiter applies (429 with Retry-After). A wrong username or password is 401 `{\"error\":\"unauthorized\"}`.",
          tags,
          security: [],
        },
      },
    );
}
