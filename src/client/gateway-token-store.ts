// Where `agent` keeps the OAuth tokens it holds for each gateway: one JSON file per gateway host under
// `<data root>/gateway-client/tokens/`, mode 0600 in a 0700 directory, written atomically. The public
// client id registered for the device flow is kept with them; client secrets are never stored. Files carry
// `version` 1 (a file without one is version 1); a newer file is refused, not overwritten.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { dataRoot, type Env } from "../config/files.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { fileFormatVersion } from "../util/file-format-version.ts";

/** The token file format this binary reads and writes. */
export const GATEWAY_TOKENS_VERSION = 1;

export interface StoredGatewayTokens {
  version?: 1;
  /** The public client registered for the device flow on this gateway. */
  device_client_id?: string;
  /** The client the tokens were issued to. */
  client_id?: string;
  /** How the tokens were obtained; `password` is a username/password (or PAM) sign-in. */
  grant?: "device_code" | "password" | "client_credentials";
  access_token?: string;
  /** Milliseconds since the epoch. */
  expires_at?: number;
  refresh_token?: string;
  scope?: string;
}

export class GatewayTokenStore {
  readonly dir: string;

  constructor(env: Env) {
    this.dir = join(dataRoot(env), "gateway-client", "tokens");
  }

  /** One file per gateway host (`host` or `host:port`), named so any host string is a safe file name. */
  pathFor(gatewayUrl: string): string {
    const host = new URL(gatewayUrl).host.toLowerCase();
    return join(this.dir, `${host.replace(/[^a-z0-9.-]/g, "_")}.json`);
  }

  load(gatewayUrl: string): StoredGatewayTokens {
    const path = this.pathFor(gatewayUrl);
    if (!existsSync(path)) return {};
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(path, "utf8")) as unknown;
    } catch {
      // A damaged file holds nothing usable: the next sign-in rewrites it.
      return {};
    }
    if (typeof value !== "object" || value === null) return {};
    fileFormatVersion(value, GATEWAY_TOKENS_VERSION, `gateway token file ${path}`);
    return value as StoredGatewayTokens;
  }

  save(gatewayUrl: string, tokens: StoredGatewayTokens): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    writeFileAtomic(this.pathFor(gatewayUrl), `${JSON.stringify({ ...tokens, version: GATEWAY_TOKENS_VERSION }, null, 2)}\n`, 0o600);
  }

  clear(gatewayUrl: string): void {
    rmSync(this.pathFor(gatewayUrl), { force: true });
  }
}
