// `agent print ...`: exports of the wire contracts, generated from the schemas that the code itself uses.
import type { CommandSpec } from "./command.ts";

const FORMAT_FLAG = {
  name: "format",
  type: "string",
  summary: "Output format (default json-pretty)",
  choices: ["json", "json-pretty", "yaml"],
} as const;

export const printCommand: CommandSpec = {
  name: "print",
  summary: "Print the wire contracts and schemas (JSON Schema, OpenAPI)",
  subcommands: [
    {
      name: "config-schema",
      summary: "Print the JSON Schema (draft 2020-12) of the app config file",
      flags: [FORMAT_FLAG],
      run: async (args, io) => (await import("./print-run.ts")).printConfigSchema(args, io),
    },
  ],
};
