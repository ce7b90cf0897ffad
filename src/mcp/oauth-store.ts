// OAuth credentials of one tool server, in `<data root>/auth/mcp/<auth_key_name>/credentials.json` (0600,
// directory 0700). The file records the server URL it belongs to: credentials saved for another URL are
// never presented to this one. Files carry `version` 1 (a file without one is version 1); a newer file is
// refused, not overwritten.
import { chmodSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { fileFormatVersion } from "../util/file-format-version.ts";

/** The credentials file format this binary reads and writes. */
export const MCP_CREDENTIALS_VERSION = 1;

export interface StoredTokens extends OAuthTokens {
  /** Milliseconds since the epoch when the access token expires, from `expires_in` at save time. */
  expires_at?: number;
}

export interface StoredCredentials {
  version?: 1;
  server_url: string;
  client_information?: OAuthClientInformationMixed;
  tokens?: StoredTokens;
  discovery?: OAuthDiscoveryState;
}

export class OAuthCredentialStore {
  readonly file: string;

  constructor(
    dataRoot: string,
    authKeyName: string,
    private readonly serverUrl: string,
  ) {
    this.file = join(dataRoot, "auth", "mcp", authKeyName, "credentials.json");
  }

  read(): StoredCredentials {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch {
      return { server_url: this.serverUrl };
    }
    let stored: StoredCredentials;
    try {
      stored = JSON.parse(text) as StoredCredentials;
    } catch {
      // A damaged file is replaced by the next authorization, like a missing one.
      return { server_url: this.serverUrl };
    }
    fileFormatVersion(stored, MCP_CREDENTIALS_VERSION, `tool server credentials file ${this.file}`);
    return stored?.server_url === this.serverUrl ? stored : { server_url: this.serverUrl };
  }

  update(change: (current: StoredCredentials) => StoredCredentials): void {
    const next = change(this.read());
    const dir = join(this.file, "..");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    writeFileAtomic(this.file, `${JSON.stringify({ ...next, version: MCP_CREDENTIALS_VERSION }, null, 2)}\n`, 0o600);
  }

  clear(): void {
    rmSync(this.file, { force: true });
  }
}
