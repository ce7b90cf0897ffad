// The single schema of the app config document. It is TypeBox, so the same object validates files,
// types the code (`AppConfig`) and is exported as the JSON Schema (draft 2020-12) titled 'app config'.
import { type Static, Type } from "@sinclair/typebox";
import { Nullable } from "./schema/common.ts";
import { DaemonConfig } from "./schema/daemon.ts";
import { HooksConfig, NotifyEvents, NotifyProgram } from "./schema/hooks.ts";
import { McpServer } from "./schema/mcp.ts";
import { ModelClassDefaults, ModelOverride } from "./schema/models.ts";
import { ProviderInstance } from "./schema/providers.ts";
import { SandboxConfig } from "./schema/sandbox.ts";
import {
  AgentBehavior,
  AutonomousPermissionMatcher,
  DataConfig,
  IntegrationsConfig,
  Notifications,
  PERMISSION_MATCHERS,
  PermissionSettings,
  PromptDefinition,
  SessionConfig,
  TelemetryConfig,
  TuiConfig,
  UpdatesConfig,
} from "./schema/session.ts";

export const CURRENT_CONFIG_VERSION = 3;

export const AppConfigSchema = Type.Object(
  {
    version: Type.Optional(Type.Integer({ minimum: 0, maximum: 255, default: CURRENT_CONFIG_VERSION })),
    config_command_substitution: Type.Optional(
      Nullable(Type.Boolean({ description: "Run `$(cmd)` / `${VAR:-cmd}` at load. Honoured only in the global config." })),
    ),
    defaults: Type.Optional(ModelClassDefaults),
    providers: Type.Optional(Type.Record(Type.String(), ProviderInstance)),
    models: Type.Optional(Type.Record(Type.String(), ModelOverride)),
    active_session: Type.Optional(Nullable(SessionConfig)),
    agent_behavior: Type.Optional(Nullable(AgentBehavior)),
    permissions: Type.Optional(Nullable(PermissionSettings)),
    notifications: Type.Optional(Nullable(Notifications)),
    default_permission_matcher: Type.Optional(Nullable(Type.Union(PERMISSION_MATCHERS.map((m) => Type.Literal(m))))),
    autonomous_permission_matcher: Type.Optional(Nullable(AutonomousPermissionMatcher)),
    sandbox: Type.Optional(Nullable(SandboxConfig)),
    plugins: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "Opaque per-extension configuration." })),
    mcp_servers: Type.Optional(Type.Record(Type.String(), McpServer)),
    daemon: Type.Optional(Nullable(DaemonConfig)),
    integrations: Type.Optional(Nullable(IntegrationsConfig)),
    facets: Type.Optional(Type.Record(Type.String(), PromptDefinition)),
    subagents: Type.Optional(Type.Record(Type.String(), PromptDefinition)),
    tui: Type.Optional(Nullable(TuiConfig)),
    data: Type.Optional(Nullable(DataConfig)),
    updates: Type.Optional(Nullable(UpdatesConfig)),
    telemetry: Type.Optional(Nullable(TelemetryConfig)),
    hooks: Type.Optional(Nullable(HooksConfig)),
    notify: Type.Optional(NotifyProgram),
    notify_events: Type.Optional(Nullable(NotifyEvents)),
  },
  { $id: "https://agent.dev/schemas/app-config.json", title: "app config" },
);

export type AppConfig = Static<typeof AppConfigSchema>;

/** The exported JSON Schema document: plain JSON, draft 2020-12, with `$schema` and `title`. */
export function appConfigJsonSchema(): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(AppConfigSchema)) as Record<string, unknown>;
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...plain };
}
