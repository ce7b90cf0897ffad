import type { Io, ParsedArgs } from "../util/cli-command.ts";
import { EXIT } from "../util/cli-command.ts";
import { formatDocument } from "../util/format-document.ts";

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

export async function printDaemonOpenApi(args: ParsedArgs, io: Io): Promise<number> {
  const { daemonOpenApiDocument } = await import("../daemon/openapi.ts");
  io.out(formatDocument(await daemonOpenApiDocument(), args.flags.format as string | undefined));
  return EXIT.ok;
}
