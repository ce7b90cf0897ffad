// The gateway's OAuth token response (RFC 6749 §5.1), as the gateway issues it (/api/v1/oauth/token,
// /api/v1/auth/token) and as clients read it (src/client/gateway-client.ts): one definition.
import { type Static, Type } from "@sinclair/typebox";

export const OAuthTokenResponseSchema = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal("Bearer"),
  expires_in: Type.Integer(),
  refresh_token: Type.Optional(Type.String()),
  scope: Type.String(),
});
export type OAuthTokenResponse = Static<typeof OAuthTokenResponseSchema>;
