// Device-login auth profiles: one JSON file per profile under `<data root>/auth/providers/`, 0600 in a
// 0700 directory, written atomically. Access tokens are refreshed shortly before they expire.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-write.ts";
import { fileFormatVersion } from "../../util/file-format-version.ts";
import type { DeviceTokenSource } from "../auth-headers.ts";
import { ProviderError } from "../errors.ts";
import { type DeviceFlowDeps, type DeviceTokens, DeviceAuthError, refreshDeviceTokens } from "./device-flow.ts";

/** Refresh when the access token expires within this margin. */
export const REFRESH_MARGIN_MS = 5 * 60_000;
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export type DeviceKind = "device_a" | "device_b";

export interface AuthProfile {
  version: 1;
  kind: DeviceKind;
  profile: string;
  provider: string;
  /** Where the tokens were issued; the refresh goes there (absent in profiles of older agents). */
  issuer?: string | null;
  token_endpoint?: string;
  client_id?: string;
  tokens: DeviceTokens;
  created_at: string;
  updated_at: string;
}

/** The auth directory of a data root; a daemon may be given another one (`agent daemon --auth-dir`). */
export function authDirOf(dataRoot: string): string {
  return join(dataRoot, "auth");
}

export function profileDir(dataRoot: string): string {
  return join(authDirOf(dataRoot), "providers");
}

function pathIn(authDir: string, profile: string): string {
  if (!PROFILE_NAME.test(profile)) throw new Error(`auth profile name '${profile}' is invalid (letters, digits, '_' and '-', at most 64)`);
  return join(authDir, "providers", `${profile}.json`);
}

export function profilePath(dataRoot: string, profile: string): string {
  return pathIn(authDirOf(dataRoot), profile);
}

export function saveProfile(dataRoot: string, p: AuthProfile): string {
  return saveProfileIn(authDirOf(dataRoot), p);
}

function saveProfileIn(authDir: string, p: AuthProfile): string {
  const dir = join(authDir, "providers");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const path = pathIn(authDir, p.profile);
  writeFileAtomic(path, `${JSON.stringify(p, null, 2)}\n`, 0o600);
  return path;
}

export function loadProfile(dataRoot: string, profile: string): AuthProfile | null {
  return loadProfileIn(authDirOf(dataRoot), profile);
}

function loadProfileIn(authDir: string, profile: string): AuthProfile | null {
  const path = pathIn(authDir, profile);
  if (!existsSync(path)) return null;
  let p: AuthProfile | null = null;
  try {
    p = JSON.parse(readFileSync(path, "utf8")) as AuthProfile;
  } catch {
    // The parser's message may quote the file, tokens included: report the file only.
  }
  // A profile written by a newer agent is refused as such, not mistaken for a damaged one.
  if (p) fileFormatVersion(p, 1, `auth profile file '${path}'`);
  if (p?.version !== 1 || typeof p.tokens?.access_token !== "string") throw new Error(`auth profile file '${path}' is not a valid profile; log in again to replace it`);
  return p;
}

/** Removes a stored profile; false when there was none. */
export function deleteProfile(dataRoot: string, profile: string): boolean {
  const path = profilePath(dataRoot, profile);
  if (!existsSync(path)) return false;
  rmSync(path);
  return true;
}

/** Names of the stored profiles (files that are not profiles are ignored). */
export function listProfiles(dataRoot: string): string[] {
  const dir = profileDir(dataRoot);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json") && PROFILE_NAME.test(f.slice(0, -5)))
    .map((f) => f.slice(0, -5))
    .sort();
}

const LOGIN_HINT = `run 'agent auth provider login --provider <name>' to log in`;

/** A token that stays valid beyond the refresh margin (or has no stated expiry) is used as it is. */
const fresh = (t: DeviceTokens, now: number) => t.expires_at === null || t.expires_at - now > REFRESH_MARGIN_MS;

/**
 * Token source for `device_a` / `device_b` provider auth, refreshing before expiry at the token endpoint
 * and with the client id the profile was issued by (saved at login), so the daemon never needs the
 * login's discovery or config to refresh. Refresh tokens
 * rotate, so two refreshes with the same token would log the user out: calls in this process share
 * one refresh per profile, and a refresh refused because another process (another session's daemon)
 * already rotated the token uses the tokens that process saved.
 */
export class DeviceProfileTokens implements DeviceTokenSource {
  private readonly refreshing = new Map<string, Promise<string>>();

  constructor(
    dataRoot: string,
    private readonly deps: DeviceFlowDeps,
    /** Where the profiles are: `<dataRoot>/auth` unless the daemon was given `--auth-dir`. */
    private readonly authDir = authDirOf(dataRoot),
  ) {}

  private load(kind: DeviceKind, profile: string): AuthProfile {
    let p: AuthProfile | null;
    try {
      p = loadProfileIn(this.authDir, profile);
    } catch (error) {
      throw new ProviderError({ kind: "auth", code: "invalid_auth_profile", message: (error as Error).message });
    }
    if (!p) throw new ProviderError({ kind: "auth", code: "no_auth_profile", message: `auth profile '${profile}' does not exist; ${LOGIN_HINT}` });
    if (p.kind !== kind) throw new ProviderError({ kind: "auth", code: "auth_profile_kind", message: `auth profile '${profile}' was created by a ${p.kind} login, not ${kind}` });
    return p;
  }

  async accessToken(kind: DeviceKind, profile: string): Promise<string> {
    const p = this.load(kind, profile);
    if (fresh(p.tokens, this.deps.clock.now())) return p.tokens.access_token;
    const pending = this.refreshing.get(profile);
    if (pending) return pending;
    const refresh = this.refresh(kind, profile, p).finally(() => this.refreshing.delete(profile));
    this.refreshing.set(profile, refresh);
    return refresh;
  }

  private async refresh(kind: DeviceKind, profile: string, p: AuthProfile): Promise<string> {
    if (!p.tokens.refresh_token)
      throw new ProviderError({ kind: "auth", code: "auth_profile_expired", message: `auth profile '${profile}' has expired and cannot be refreshed; ${LOGIN_HINT}` });
    if (!p.token_endpoint || !p.client_id)
      throw new ProviderError({ kind: "auth", code: "auth_profile_expired", message: `auth profile '${profile}' has expired and does not say where it was issued (an older agent saved it); ${LOGIN_HINT}` });
    let tokens: DeviceTokens;
    try {
      tokens = await refreshDeviceTokens({ token_endpoint: p.token_endpoint, client_id: p.client_id }, p.tokens.refresh_token, this.deps);
    } catch (error) {
      const e = error as DeviceAuthError;
      if (e.code === "invalid_grant") {
        const now = this.load(kind, profile);
        if (now.tokens.refresh_token !== p.tokens.refresh_token && fresh(now.tokens, this.deps.clock.now())) return now.tokens.access_token;
      }
      throw new ProviderError({
        kind: e.code === "network" ? "network" : "auth",
        code: `refresh_${e.code ?? "failed"}`,
        message: `refreshing auth profile '${profile}' failed: ${e.message}${e.code === "invalid_grant" ? `; ${LOGIN_HINT}` : ""}`,
        secrets: [p.tokens.refresh_token, p.tokens.access_token],
      });
    }
    saveProfileIn(this.authDir, { ...p, tokens, updated_at: new Date(this.deps.clock.now()).toISOString() });
    return tokens.access_token;
  }
}
