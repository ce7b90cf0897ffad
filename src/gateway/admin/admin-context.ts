// Opens the gateway database for the (db) admin commands: the same config, data dir and pepper as the
// server, no listener. Without --config and without a config file, the built-in defaults apply.
import { existsSync } from "node:fs";
import { CliError, type Io, type ParsedArgs } from "../../util/cli-command.ts";
import { createGatewayContext, type GatewayContext } from "../context.ts";
import { defaultConfigPath, defaultGatewayConfig, GatewayConfigError, loadGatewayConfig } from "../config/load.ts";
import type { GatewayConfig } from "../config/types.ts";
import { PepperError } from "../auth/pepper.ts";

export function loadConfigFor(args: ParsedArgs, io: Io, required: boolean): GatewayConfig {
  const explicit = args.flags.config as string | undefined;
  const path = explicit ?? defaultConfigPath(io.env);
  try {
    if (!explicit && !required && !existsSync(path)) return defaultGatewayConfig();
    return loadGatewayConfig(path);
  } catch (error) {
    if (error instanceof GatewayConfigError) throw new CliError(error.message);
    throw error;
  }
}

export async function withAdmin<T>(args: ParsedArgs, io: Io, work: (ctx: GatewayContext) => Promise<T>): Promise<T> {
  const config = loadConfigFor(args, io, false);
  let ctx: GatewayContext;
  try {
    ctx = await createGatewayContext({ config, env: io.env });
  } catch (error) {
    if (error instanceof PepperError) throw new CliError(error.message);
    throw new CliError(`cannot open the gateway database: ${(error as Error).message}`);
  }
  try {
    return await work(ctx);
  } finally {
    await ctx.db.close();
  }
}

/** Who ran an admin command, for the audit log. */
export function cliActor(): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  return `via CLI${uid === undefined ? "" : ` (uid ${uid})`}`;
}
