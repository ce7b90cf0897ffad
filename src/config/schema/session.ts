// Smaller blocks of the config: sessions, shell, permissions, notifications, integrations, prompts,
// terminal display and the global-only platform blocks.
import { Type } from "@sinclair/typebox";
import { Nullable, StringList, StringMap, Uint32 } from "./common.ts";
import { TuiKeys } from "./tui-keys.ts";

export const SessionConfig = Type.Object({
  default_facet: Type.Optional(Nullable(Type.String({ description: "Facet for a new interactive session; default execute." }))),
  default_exec_facet: Type.Optional(Nullable(Type.String({ description: "Facet for `agent exec`; default execute." }))),
});

export const AgentBehavior = Type.Object({
  shell: Type.Object({
    command: Type.Union([Type.Literal("bash"), Type.Literal("powershell")]),
    init_script: Type.Optional(Nullable(Type.String({ description: "Project-relative script sourced before the first shell call." }))),
  }),
});

export const PermissionSettings = Type.Object(
  {
    secret_words: Type.Optional(StringList("Values blocked from environment exposure and redacted from tool output.")),
    secret_files: Type.Optional(StringList("Files the agent asks before reading and redacts from search results.")),
  },
  { additionalProperties: false },
);

export const Notifications = Type.Object({
  trigger_turn: Type.Optional(Type.Boolean({ default: false, description: "Reserved; has no effect." })),
  trigger_types: Type.Optional(StringList("Reserved; has no effect.")),
  auto_drain_notifications: Type.Optional(Type.Boolean({ default: true })),
});

export const PERMISSION_MATCHERS = ["standard", "bypass", "bypass_plus", "autonomous"] as const;

export const AutonomousPermissionMatcher = Type.Object({
  classifier_model: Type.Optional(Nullable(Type.String())),
  classifier_rules: Type.Optional(Nullable(Type.String())),
  max_consecutive_denials: Type.Optional(Uint32({ default: 3 })),
});

const SearchProvider = Type.Object({
  enabled: Type.Optional(Type.Boolean({ default: false })),
  key: Type.String({ description: "API key, usually `${ENV_VAR}`." }),
});

export const SEARCH_PROVIDERS = ["search_a", "search_b", "search_c", "search_d"] as const;

export const IntegrationsConfig = Type.Object({
  search: Type.Optional(
    Type.Object({
      strategy: Type.Optional(Type.Union([Type.Literal("round_robin"), Type.Literal("random")])),
      providers: Type.Optional(
        Type.Object(Object.fromEntries(SEARCH_PROVIDERS.map((name) => [name, Type.Optional(SearchProvider)]))),
      ),
    }),
  ),
});

export const PromptDefinition = Type.Object({
  source: Type.String({ minLength: 1, description: "`agent://...` or a project-relative path inside the project." }),
});

export const TuiConfig = Type.Object({
  theme: Type.Optional(Nullable(Type.String({ description: "auto (default: dark or light from the terminal's background), dark, light, or NAME: the theme file <global config dir>/themes/NAME.yaml (letters, digits, '_' and '-'). NO_COLOR turns every color off." }))),
  keys: Type.Optional(Nullable(TuiKeys)),
});

/** An http(s) URL; the loader reports anything else with the field's path. */
const HttpUrl = (description: string) => Type.String({ pattern: "^https?://[^\\s]+$", description: `an http:// or https:// URL. ${description}` });

export const DataConfig = Type.Object({
  automatic_crash_reporting: Type.Optional(Nullable(Type.Boolean({ default: false, description: "Also send each crash report to `crash_report_endpoint` (reports are always written locally)." }))),
  crash_report_endpoint: Type.Optional(Nullable(HttpUrl("Where crash reports are POSTed as JSON when automatic_crash_reporting is on; nothing is sent without it."))),
  crash_report_headers: Type.Optional(StringMap("Headers sent with each crash report (for example an ingest key as `${ENV_VAR}`).")),
});

export const UPDATE_CHANNELS = ["stable", "beta"] as const;

export const UpdatesConfig = Type.Object({
  automatic_check: Type.Optional(Nullable(Type.Boolean({ default: true, description: "Check for a newer release in the background at launch (at most once a day); the result is shown on the next run." }))),
  channel: Type.Optional(Nullable(Type.Union(UPDATE_CHANNELS.map((c) => Type.Literal(c)), { default: "stable", description: "stable: stable releases only; beta: beta and stable releases, whichever is newer." }))),
  manifest_url: Type.Optional(Nullable(HttpUrl("The release manifest (docs/updates.md); without it there is nothing to check."))),
});

export const TelemetryConfig = Type.Object({
  endpoint: Type.Optional(Nullable(HttpUrl("OTLP/HTTP base URL (traces go to <endpoint>/v1/traces); default http://localhost:4318. OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT override."))),
  protocol: Type.Optional(Nullable(Type.Union([Type.Literal("http/json"), Type.Literal("http/protobuf")], { default: "http/json", description: "OTLP encoding (http/json costs less CPU under Bun); OTEL_EXPORTER_OTLP_TRACES_PROTOCOL / OTEL_EXPORTER_OTLP_PROTOCOL override." }))),
  headers: Type.Optional(StringMap("Headers sent with every export; OTEL_EXPORTER_OTLP_TRACES_HEADERS / OTEL_EXPORTER_OTLP_HEADERS override per name.")),
  service_name: Type.Optional(Nullable(Type.String({ minLength: 1, default: "agent", description: "Resource service.name; OTEL_SERVICE_NAME overrides." }))),
  sample_ratio: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1, default: 1, description: "Share of traces kept (parent-based trace-id ratio); OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG override." }))),
});
