import { Type } from "@sinclair/typebox";
import { PROTOCOLS } from "../../providers/protocols.ts";
import { Nullable, StringMap } from "./common.ts";

export const ProviderKind = Type.Union(
  [
    Type.Object(
      {
        type: Type.Literal("catalog"),
        name: Type.String({ minLength: 1, description: "Built-in catalog provider resolved by name." }),
      },
      { required: ["type", "name"] },
    ),
    Type.Object({ type: Type.Literal("custom_a_compatible") }, { description: "Custom backend speaking the Messages dialect." }),
    Type.Object({ type: Type.Literal("custom_b_compatible") }, { description: "Custom backend speaking an OpenAI-compatible chat dialect." }),
    Type.Object({ type: Type.Literal("custom_b_responses") }, { description: "Custom backend speaking the Responses dialect." }),
  ],
  { description: "Where the provider comes from (discriminator `type`)." },
);

export const AUTH_FORMATS = ["bearer_token", "a_x_api_key", "c_api_key"] as const;
export const AuthFormat = Type.Union(AUTH_FORMATS.map((f) => Type.Literal(f)), {
  description: "bearer_token: `Authorization: Bearer <key>`; a_x_api_key: `x-api-key: <key>`; c_api_key: `api-key: <key>`.",
});

/** Where a device login authorizes, over the catalog entry's; see docs/providers.md "Device login". */
const DeviceLoginFields = {
  issuer: Type.Optional(Nullable(Type.String({ minLength: 1, description: "OAuth issuer URL; its RFC 8414 metadata names the device authorization and token endpoints." }))),
  device_authorization_endpoint: Type.Optional(Nullable(Type.String({ minLength: 1, description: "RFC 8628 device authorization endpoint (instead of discovery)." }))),
  token_endpoint: Type.Optional(Nullable(Type.String({ minLength: 1, description: "Token endpoint (instead of discovery)." }))),
  client_id: Type.Optional(Nullable(Type.String({ minLength: 1, description: "Public OAuth client id registered for this agent at the issuer." }))),
  scope: Type.Optional(Nullable(Type.String({ description: "Scopes requested at login, space separated." }))),
};

export const ProviderAuth = Type.Union(
  [
    Type.Object({ type: Type.Literal("no_auth") }, { description: "No auth header; for local servers." }),
    Type.Object({
      type: Type.Literal("static_key"),
      key: Type.String({ description: "Fixed secret; surrounding whitespace and newlines are stripped at load. Usually `${ENV_VAR}`." }),
      format: Type.Optional(Nullable(AuthFormat)),
    }),
    Type.Object({ type: Type.Literal("device_a"), profile: Type.String({ minLength: 1, description: "Stored auth profile name." }), ...DeviceLoginFields }),
    Type.Object({ type: Type.Literal("device_b"), profile: Type.String({ minLength: 1, description: "Profile chosen at `agent auth provider login`." }), ...DeviceLoginFields }),
  ],
  { description: "Provider authentication (discriminator `type`)." },
);

export const ProviderProtocol = Type.Union(PROTOCOLS.map((p) => Type.Literal(p)), {
  description: "API dialect. The suffix names the wire format; `test` is the scripted offline provider.",
});

export const CACHE_CONTROL_STRATEGIES = ["provider_managed", "breakpoints"] as const;

export const ProviderInstance = Type.Object({
  kind: ProviderKind,
  url: Type.Optional(Nullable(Type.String({ description: "Base address; required for custom kinds, overrides the catalog default." }))),
  auth: Type.Optional(Nullable(ProviderAuth)),
  protocol: Type.Optional(Nullable(ProviderProtocol)),
  headers: Type.Optional(StringMap("Extra HTTP headers sent with every request; a per-request header wins.")),
  cache_control_strategy: Type.Optional(
    Nullable(
      Type.Union(CACHE_CONTROL_STRATEGIES.map((s) => Type.Literal(s)), {
        description: "Messages dialect only. Default: breakpoints for the first-party endpoint, provider_managed elsewhere.",
      }),
    ),
  ),
});
