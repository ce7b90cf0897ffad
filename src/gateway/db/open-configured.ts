// Opens the database the config names: PostgreSQL when `database.url` is set (its password from the
// variable or file the config names), else SQLite in the data dir.
import type { GatewayConfig } from "../config/types.ts";
import { databasePassword } from "../config/database-password.ts";
import { openGatewayDb, type OpenedDb } from "./open.ts";
import { openGatewayPg } from "./open-pg.ts";

export async function openConfiguredDb(config: GatewayConfig, env: Record<string, string | undefined>, dataDir: string): Promise<OpenedDb> {
  if (!config.database.url) return openGatewayDb(dataDir);
  return openGatewayPg(config.database.url, { password: databasePassword(config, env), max: config.database.pool_size });
}
