// Starts real gateways on 127.0.0.1:0 with a temp data dir, a fake clock and fast hashing.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeClock } from "../fakes/fake-clock.ts";
import { freshPgDatabase } from "../helpers/postgres.ts";
import { parseGatewayConfig } from "../../src/gateway/config/load.ts";
import { startGateway, type RunningGateway, type StartOptions } from "../../src/gateway/server/serve.ts";

export interface TestGateway extends RunningGateway {
  clock: FakeClock;
  dir: string;
}

/** The dialect the gateway tests run on: `AGENT_TEST_DB=pg` runs them on PostgreSQL (a fresh database each). */
export const TEST_DB: "sqlite" | "pg" = process.env.AGENT_TEST_DB === "pg" ? "pg" : "sqlite";

/**
 * `extra` is YAML appended to a base config (port 0, temp data dir, cheap Argon2 settings). `database`: a
 * PostgreSQL URL to share (replicas); otherwise a fresh PostgreSQL database under AGENT_TEST_DB=pg, else SQLite.
 */
export async function startTestGateway(extra = "", options: Partial<StartOptions> & { auth?: string; dataDir?: string; database?: string } = {}): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), "gw-test-"));
  const database = options.database ?? (TEST_DB === "pg" ? await freshPgDatabase() : undefined);
  const yaml = `data_dir: ${options.dataDir ?? join(dir, "data")}\n${database ? `database:\n  url: ${database}\n` : ""}listen:\n  address: 127.0.0.1\n  port: 0\nauth:\n  password:\n    memory_kib: 8192\n    time_cost: 1\n${options.auth ?? ""}${extra}`;
  const file = join(dir, "gateway-config.yaml");
  writeFileSync(file, yaml);
  const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));
  const gw = await startGateway({ config: parseGatewayConfig(yaml, file), env: process.env, clock, pam: null, ...options });
  return Object.assign(gw, { clock, dir });
}

export function tempDir(prefix = "gw-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Creates a principal with a password straight in the database; returns its id. */
export async function addUser(gw: RunningGateway, username: string, password: string): Promise<string> {
  const p = await gw.ctx.principals.create(username);
  await gw.ctx.principals.setPasswordHash(p.id, await gw.ctx.hasher.hash(password));
  return p.id;
}
