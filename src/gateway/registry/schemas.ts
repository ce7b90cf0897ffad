// Wire shapes of the registry routes (TypeBox): the single source for validation, the OpenAPI document
// and the CLI's types. Field names the spec leaves open are recorded in docs/decisions-gateway.md.
import { t } from "elysia";
import { CONFIG_NAME_MAX, CONFIG_NAME_RULE } from "./names.ts";

const Format = t.Union([t.Literal("yaml"), t.Literal("toml")], { description: "format of config_content" });
const Timestamp = t.String({ format: "date-time" });

export const ConfigurationResponse = t.Object({
  name: t.String(),
  format: Format,
  created_at: Timestamp,
  updated_at: Timestamp,
  bound_projects: t.Integer({ minimum: 0, description: "number of projects bound to this configuration" }),
  has_pre_run_script: t.Boolean(),
});

export const ConfigurationDetailResponse = t.Composite([
  ConfigurationResponse,
  t.Object({
    config_content: t.String({ description: "the raw config file, as registered" }),
    pre_run_script: t.Union([t.String(), t.Null()], { description: "the raw pre-run.sh, or null when there is none" }),
  }),
]);

export const CreateConfigurationBody = t.Object(
  {
    name: t.String({ description: CONFIG_NAME_RULE, maxLength: 1000 }),
    config_content: t.String({ description: "app config file content, validated against config_format and the app config schema" }),
    config_format: Format,
    pre_run_script: t.Optional(t.String({ description: "shell script run before the daemon starts (stored as pre-run.sh, mode 0700)" })),
  },
  { additionalProperties: false },
);

export const UpdateConfigurationBody = t.Object(
  {
    config_content: t.Optional(t.String()),
    config_format: t.Optional(Format),
    pre_run_script: t.Optional(t.String({ description: "an empty string deletes the script" })),
  },
  { additionalProperties: false, description: "at least one field; a format change needs config_content in the new format" },
);

export const ConfigurationNameParams = t.Object({ name: t.String({ description: `${CONFIG_NAME_RULE} (max ${CONFIG_NAME_MAX})` }) });

export const HookStatusSchema = t.Object({
  has_gateway_yaml: t.Boolean({ description: "true when .agent/gateway.yaml exists in the project and parses" }),
  configured_hooks: t.Array(t.String(), { description: "hook names from that file; empty when absent, unreadable or unparsable" }),
});

export const ProjectResponse = t.Object({
  id: t.String({ pattern: "^[0-9a-f]{8}$" }),
  path: t.String({ description: "canonical absolute path on the gateway machine" }),
  config_name: t.String(),
  registered_at: Timestamp,
  updated_at: Timestamp,
  owner_host: t.Union([t.String(), t.Null()], { description: "host_name of the gateway host that registered the project (its directory is on that host, and only that host derives hook_status: on another host it reads as no gateway.yaml); null for a record written before owners were recorded and not yet claimed" }),
  hook_status: HookStatusSchema,
});

export const CreateProjectBody = t.Object(
  {
    path: t.String({ description: "absolute path of an existing directory on the gateway machine", maxLength: 4096 }),
    config_name: t.String({ description: "a registered configuration", maxLength: 1000 }),
    host: t.Optional(t.String({ minLength: 1, maxLength: 255, description: "the host the directory is on (the project's owner_host): this gateway host when left out, or a joined host agent connected to this front" })),
  },
  { additionalProperties: false },
);

export const RebindProjectBody = t.Object({ config_name: t.String({ maxLength: 1000 }) }, { additionalProperties: false });
export const ProjectIdParams = t.Object({ id: t.String({ description: "8 hexadecimal characters" }) });

export const RegistryError = t.Object({ error: t.String(), message: t.Optional(t.String()) });
