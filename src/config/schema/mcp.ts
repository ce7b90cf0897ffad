import { Type } from "@sinclair/typebox";
import { Nullable, StringList, StringMap, Uint64 } from "./common.ts";

/** ASCII letters, digits, `_`, `-`; no leading underscore; no `__`. */
export const AUTH_KEY_NAME_PATTERN = "^(?!_)(?!.*__)[A-Za-z0-9_-]+$";

const McpRegistration = Type.Union(
  [
    Type.Object({ type: Type.Literal("auto") }, { description: "The server drives dynamic registration." }),
    Type.Object({
      type: Type.Literal("client-metadata-url"),
      url: Type.String({ description: "HTTPS URL with a non-root path serving the client metadata." }),
    }),
    Type.Object({
      type: Type.Literal("pre-registered"),
      client_id: Type.String({ minLength: 1 }),
      client_secret: Type.Optional(Nullable(Type.String())),
    }),
  ],
  { description: "OAuth client registration (discriminator `type`, default auto)." },
);

const McpRedirect = Type.Union(
  [
    Type.Object({ type: Type.Literal("ephemeral-loopback") }, { description: "Temporary loopback redirect." }),
    Type.Object({ type: Type.Literal("fixed"), uri: Type.String({ description: "HTTPS or loopback HTTP redirect URI." }) }),
  ],
  { description: "OAuth redirect (discriminator `type`, default ephemeral-loopback)." },
);

export const McpRemoteAuth = Type.Union(
  [
    Type.Object({ type: Type.Literal("none") }),
    Type.Object({
      type: Type.Literal("authorization-header"),
      value: Type.String({ description: "The full Authorization header value including the scheme." }),
    }),
    Type.Object({
      type: Type.Literal("oauth"),
      scopes: Type.Optional(StringList("Scopes to request; omitted lets the server choose.")),
      registration: Type.Optional(McpRegistration),
      redirect: Type.Optional(McpRedirect),
    }),
    Type.Object(
      {
        type: Type.Literal("client-credentials"),
        client_id: Type.String({ minLength: 1 }),
        client_secret: Type.Optional(Type.String({ minLength: 1, description: "Secret for client_secret_basic (or _post when the server takes only that); use ${VAR}." })),
        client_secret_file: Type.Optional(Type.String({ minLength: 1, description: "File holding the secret (absolute or ~/...), read at each connection." })),
        private_key_file: Type.Optional(Type.String({ minLength: 1, description: "PKCS#8 PEM private key for private_key_jwt (absolute or ~/...)." })),
        private_key: Type.Optional(Type.String({ minLength: 1, description: "The PEM private key itself for private_key_jwt; use ${VAR}." })),
        signing_algorithm: Type.Optional(Type.String({ minLength: 1, description: "JWS algorithm of the client assertion (RS256, ES256, ...); default RS256." })),
        scopes: Type.Optional(StringList("Scopes to request; omitted lets the server choose.")),
        authorization_server: Type.Optional(Type.String({ description: "The authorization server (issuer URL) the credentials belong to; other servers never receive them." })),
      },
      { description: "OAuth client-credentials grant (SEP-1046): a machine identity, no user, no browser." },
    ),
    Type.Object(
      {
        type: Type.Literal("cross-app-access"),
        client_id: Type.String({ minLength: 1, description: "This client at the tool server's authorization server." }),
        client_secret: Type.Optional(Type.String({ minLength: 1 })),
        client_secret_file: Type.Optional(Type.String({ minLength: 1 })),
        scopes: Type.Optional(StringList("Scopes to request; omitted lets the server choose.")),
        idp: Type.Object(
          {
            token_endpoint: Type.String({ minLength: 1, description: "The identity provider's token endpoint (RFC 8693 token exchange)." }),
            client_id: Type.String({ minLength: 1, description: "This client at the identity provider." }),
            client_secret: Type.Optional(Type.String({ minLength: 1 })),
            client_secret_file: Type.Optional(Type.String({ minLength: 1 })),
            id_token: Type.Optional(Type.String({ minLength: 1, description: "The user's ID token from the identity provider; use ${VAR}." })),
            id_token_file: Type.Optional(Type.String({ minLength: 1, description: "File holding the ID token, read at each connection." })),
          },
          { description: "The enterprise identity provider that issues the identity assertion grant (ID-JAG)." },
        ),
      },
      { description: "Enterprise-managed authorization (SEP-990, cross-app access): the user's identity-provider ID token is exchanged for the tool server's access token, without a consent page." },
    ),
  ],
  { description: "Remote tool-server auth (discriminator `type`, default none)." },
);

const common = {
  block_list: Type.Optional(StringList("Tool names `mcp__<server>__<tool>` hidden from the model.")),
  default_timeout_seconds: Type.Optional(
    Nullable(Uint64({ description: "Maximum seconds for one tool call; zero is rejected." })),
  ),
  auth_key_name: Type.Optional(
    Nullable(Type.String({ pattern: AUTH_KEY_NAME_PATTERN, description: "Directory under auth/mcp/ for OAuth credentials." })),
  ),
  default_enabled: Type.Optional(Type.Boolean({ default: true })),
  startup_timeout_seconds: Type.Optional(
    Nullable(Uint64({ description: "Seconds the connection (handshake and tool list) may take before the server counts as failed; default 30; zero is rejected." })),
  ),
  max_output_bytes: Type.Optional(
    Nullable(Uint64({ description: "Most text of one tool result the model gets (head and tail kept, the whole result saved to a file it can read); default 30720; images are counted apart." })),
  ),
};

export const McpServer = Type.Union(
  [
    Type.Object({
      transport: Type.Literal("stdio"),
      ...common,
      command: Type.String({ minLength: 1 }),
      args: Type.Optional(StringList()),
      env: Type.Optional(StringMap("Variables set for the child (its environment starts cleared).")),
      pass_env: Type.Optional(Nullable(StringList("Variables copied from the agent's environment; default HOME, PATH, LANG, TMPDIR."))),
      log_stderr: Type.Optional(Type.Boolean({ default: true })),
      log_stdout: Type.Optional(Type.Boolean({ default: false })),
    }),
    Type.Object({
      transport: Type.Literal("http"),
      ...common,
      url: Type.String({ minLength: 1 }),
      auth: Type.Optional(McpRemoteAuth),
      headers: Type.Optional(StringMap("Sent with every request.")),
      reinit_on_expired_session: Type.Optional(Type.Boolean({ default: false })),
    }),
  ],
  { description: "A tool server (discriminator `transport`)." },
);
