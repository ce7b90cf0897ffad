// `agent config ...`: check, show, locate and upgrade the app config.
import type { CommandSpec, FlagSpec } from "../util/cli-command.ts";

const CONFIG_FLAG: FlagSpec = {
  name: "config",
  type: "string",
  valueName: "FILE",
  summary: "Use FILE instead of the global config for this run",
};
const JSON_FLAG: FlagSpec = { name: "json", type: "boolean", summary: "Print JSON for scripts" };

const run = (name: "validate" | "show" | "path" | "upgrade"): CommandSpec["run"] =>
  async (args, io) => (await import("./config-run.ts"))[name](args, io);

export const configCommand: CommandSpec = {
  name: "config",
  summary: "Check, show, locate and upgrade the config file",
  description: `
The config has two layers: the global file $XDG_CONFIG_HOME/agent/config.{yaml,yml,toml,json}
(else ~/.config/agent/) and the project file .agent/config.{yaml,yml,toml,json}, found from the
working directory upward. Maps merge by key; scalars and lists from the project replace the global
value; null erases it. data, updates and telemetry may only be set in the global file.`,
  subcommands: [
    {
      name: "validate",
      summary: "Check both layers and report every problem (exit 1 when there are errors)",
      flags: [CONFIG_FLAG, JSON_FLAG],
      run: run("validate"),
    },
    {
      name: "show",
      summary: "Print the merged config with secrets redacted",
      flags: [
        CONFIG_FLAG,
        { name: "effective", type: "boolean", summary: "Also show which layer set each key, resolved models and derived values" },
        JSON_FLAG,
      ],
      run: run("show"),
    },
    {
      name: "path",
      summary: "Print where the global and project config files are (or would be)",
      flags: [CONFIG_FLAG, JSON_FLAG],
      run: run("path"),
    },
    {
      name: "upgrade",
      summary: "Write `version: 3` into config files written for an older version, keeping comments",
      flags: [CONFIG_FLAG, JSON_FLAG],
      run: run("upgrade"),
    },
  ],
  examples: ["agent config validate", "agent config show --effective --json", "agent config path"],
};
