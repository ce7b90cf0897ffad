import { stringify } from "yaml";
import type { Io, ParsedArgs } from "./command.ts";
import { EXIT } from "./command.ts";

/** Serializes a schema document in the format chosen with `--format`. */
export function formatDocument(doc: unknown, format: string | undefined): string {
  switch (format ?? "json-pretty") {
    case "json":
      return `${JSON.stringify(doc)}\n`;
    case "yaml":
      return stringify(doc, { aliasDuplicateObjects: false });
    default:
      return `${JSON.stringify(doc, null, 2)}\n`;
  }
}

export async function printConfigSchema(args: ParsedArgs, io: Io): Promise<number> {
  const { appConfigJsonSchema } = await import("../config/schema.ts");
  io.out(formatDocument(appConfigJsonSchema(), args.flags.format as string | undefined));
  return EXIT.ok;
}

export async function printSyncEventSchema(args: ParsedArgs, io: Io): Promise<number> {
  const { syncRecordJsonSchema } = await import("../protocol/sync-record.ts");
  io.out(formatDocument(syncRecordJsonSchema(), args.flags.format as string | undefined));
  return EXIT.ok;
}

export async function printFleetEventSchema(args: ParsedArgs, io: Io): Promise<number> {
  const { fleetEventJsonSchema } = await import("../protocol/fleet-event.ts");
  io.out(formatDocument(fleetEventJsonSchema(), args.flags.format as string | undefined));
  return EXIT.ok;
}
