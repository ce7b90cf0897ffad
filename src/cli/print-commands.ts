// `agent print ...`: exports of the wire contracts, generated from the schemas that the code itself uses.
import type { CommandSpec } from "../util/cli-command.ts";

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
    {
      name: "sync-event-schema",
      summary: "Print the JSON Schema (draft 2020-12) of SyncRecordV1, the daemon's ordered sync records, with its SSE frames ($defs RecordsFrameV1, ResetFrameV1)",
      flags: [FORMAT_FLAG],
      run: async (args, io) => (await import("./print-run.ts")).printSyncEventSchema(args, io),
    },
    {
      name: "fleet-event-schema",
      summary: "Print the JSON Schema (draft 2020-12) of FleetEventV1, the gateway's fleet events",
      flags: [FORMAT_FLAG],
      run: async (args, io) => (await import("./print-run.ts")).printFleetEventSchema(args, io),
    },
    {
      name: "gateway-openapi",
      summary: "Print the gateway's OpenAPI 3.1 document (as served at /api/v1/openapi.json)",
      flags: [FORMAT_FLAG],
      run: async (args, io) => (await import("../gateway/admin/print-openapi.ts")).printGatewayOpenApi(args, io),
    },
    {
      name: "daemon-openapi",
      summary: "Print the session daemon's OpenAPI 3.1 document (its routes, request and response bodies)",
      flags: [FORMAT_FLAG],
      run: async (args, io) => (await import("./print-run.ts")).printDaemonOpenApi(args, io),
    },
  ],
};
