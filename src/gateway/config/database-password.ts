// The PostgreSQL password of `database.url`: from the variable `database.password_env` names or the first
// line of `database.password_file`, never from the config file itself (the URL may not carry one).
import { readFileSync } from "node:fs";
import type { GatewayConfig } from "./types.ts";
import { GatewayConfigError } from "./load.ts";

export function databasePassword(config: GatewayConfig, env: Record<string, string | undefined>): string | undefined {
  const { password_env, password_file } = config.database;
  const where = config.source ?? "the gateway config";
  if (password_env !== undefined) {
    const value = env[password_env];
    if (value === undefined || value === "") throw new GatewayConfigError(`${where}: database.password_env names ${password_env}, which is not set`);
    return value;
  }
  if (password_file !== undefined) {
    let text: string;
    try {
      text = readFileSync(password_file, "utf8");
    } catch (error) {
      throw new GatewayConfigError(`${where}: database.password_file ${password_file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    const line = text.split(/\r?\n/, 1)[0] ?? "";
    if (line === "") throw new GatewayConfigError(`${where}: database.password_file ${password_file} is empty`);
    return line;
  }
  return undefined;
}
