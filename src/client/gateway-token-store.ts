// Where `agent` keeps the OAuth tokens it holds for each gateway: one JSON file per gateway host under
// `<data root>/gateway-client/tokens/`, mode 0600 in a 0700 directory, written atomically. The public
// client id registered for the device flow is kept with them; client secrets are never stored.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { dataRoot, type Env } from "../config/files.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";

export interface StoredGatewayTokens {
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
    try {
      const value = JSON.parse(readFileSync(path, "utf8")) as unknown;
      return typeof value === "object" && value !== null ? (value as StoredGatewayTokens) : {};
    } catch {
      // A damaged file holds nothing usable: the next sign-in rewrites it.
      return {};
    }
  }

  save(gatewayUrl: string, tokens: StoredGatewayTokens): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    writeFileAtomic(this.pathFor(gatewayUrl), `${JSON.stringify(tokens, null, 2)}\n`, 0o600);
  }

  clear(gatewayUrl: string): void {
    rmSync(this.pathFor(gatewayUrl), { force: true });
  }
}
