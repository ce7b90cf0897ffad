// Bearer verification by token family. Every failure is the same 401; an internal failure is a 503
// that never lets the request through. `check` reports failures as values (no exception on the hot
// path: a rejected token costs about what an accepted one does); `verify` throws them for handlers.
import { createHmac } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import { ProtocolError } from "../../protocol/errors.ts";
import type { Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/open.ts";
import { first } from "../db/handle.ts";
import { constantTimeEqualHex } from "../../util/ids.ts";
import type { PatStore } from "./pats.ts";
import type { HostCredentialStore } from "../hosts/credentials.ts";
import { tokenHash, VerifiedCache, type DbStamp } from "./verified-cache.ts";

export const UNAUTHORIZED_BODY = '{"error":"unauthorized"}';

/** Scopes of the gateway. Human credentials (PATs, web sessions) hold all of them. */
export const ALL_SCOPES = ["machine", "project"] as const;

export interface AuthResult {
  family: "pat" | "oat" | "dsc" | "web" | "hst";
  principalId: string | null;
  scopes: string[];
  /** The principal's username, when there is a principal. */
  username: string | null;
  /** Token or credential id (never the secret). */
  credentialId: string;
  /** For `dsc_`: the session whose daemon holds the credential (`current_session` authority). */
  sessionId?: string;
  /** For `hst_`: the host the credential is scoped to, the only name its connection may claim. */
  hostName?: string;
  /** When the credential expires (ms, the gateway clock), for those that do (`oat_`): open streams end then. */
  expiresAt?: number;
}

/** Why a bearer check failed: `unauthorized` -> the identical 401; `unavailable` -> 503. */
export type AuthFailure = "unauthorized" | "unavailable";

export function unauthorized(): ProtocolError {
  return new ProtocolError("unauthorized", 401, undefined, { "WWW-Authenticate": 'Bearer error="invalid_token"' });
}

export function authUnavailable(): ProtocolError {
  return new ProtocolError("unavailable", 503, "authentication is temporarily unavailable");
}

/** HMAC-SHA-256(pepper, token): the stored verifier of a daemon service credential. */
export function serviceCredentialVerifier(pepper: Uint8Array, token: string): string {
  return createHmac("sha256", pepper).update(token).digest("hex");
}

/** RFC 7235: the scheme name is case-insensitive (`bearer`, `BEARER`); one space, then the token. */
const BEARER = /^[Bb][Ee][Aa][Rr][Ee][Rr] ([A-Za-z0-9._~+/=-]{1,512})$/;

interface LiveOat {
  result: AuthResult;
  expiresAt: number;
}

export class BearerVerifier {
  private readonly oatByHash;
  private readonly oatCache: VerifiedCache<LiveOat>;
  private readonly patResults = new WeakMap<object, AuthResult>();

  constructor(
    private readonly db: GatewayDb,
    private readonly pats: PatStore,
    private readonly pepper: Uint8Array,
    private readonly clock: Clock,
    stamp: DbStamp,
    private readonly hosts: HostCredentialStore,
  ) {
    this.oatCache = new VerifiedCache(stamp);
    const { oauthAccessTokens, oauthGrants, principals } = db.t;
    this.oatByHash = db
      .select({ t: oauthAccessTokens, grantRevoked: oauthGrants.revokedAt, username: principals.username })
      .from(oauthAccessTokens)
      .leftJoin(oauthGrants, eq(oauthGrants.id, oauthAccessTokens.grantId))
      .innerJoin(principals, eq(principals.id, oauthAccessTokens.principalId))
      .where(and(eq(oauthAccessTokens.tokenHash, sql.placeholder("hash")), isNull(oauthAccessTokens.revokedAt)))
      .prepare("oat_by_hash");
  }

  /** Told of each failed check (the failure counts of the log); never of the token. */
  onFailure: ((kind: "bearer_missing" | "bearer_invalid" | "bearer_unavailable") => void) | null = null;

  /** Checks an `Authorization` header value without throwing. */
  async check(header: string | null): Promise<AuthResult | AuthFailure> {
    const match = header === null ? null : BEARER.exec(header);
    if (!match) {
      this.onFailure?.(header === null ? "bearer_missing" : "bearer_invalid");
      return "unauthorized";
    }
    const token = match[1]!;
    try {
      let result: AuthResult | undefined;
      if (token.startsWith("oat_")) result = await this.oat(token);
      else if (token.startsWith("pat_")) result = await this.pat(token);
      else if (token.startsWith("dsc_")) result = await this.dsc(token);
      if (!result) this.onFailure?.("bearer_invalid");
      return result ?? "unauthorized";
    } catch {
      this.onFailure?.("bearer_unavailable");
      return "unavailable";
    }
  }

  /**
   * Checks a host credential (`hst_`), the only family the connect route accepts; every other route uses
   * `check`, to which `hst_` is an unknown family (the identical 401).
   */
  async checkHost(header: string | null): Promise<AuthResult | AuthFailure> {
    const match = header === null ? null : BEARER.exec(header);
    if (!match || !match[1]!.startsWith("hst_")) {
      this.onFailure?.(header === null ? "bearer_missing" : "bearer_invalid");
      return "unauthorized";
    }
    try {
      const info = await this.hosts.use(match[1]!);
      if (!info) {
        this.onFailure?.("bearer_invalid");
        return "unauthorized";
      }
      return { family: "hst", principalId: null, username: null, scopes: [], credentialId: info.id, hostName: info.hostName };
    } catch {
      this.onFailure?.("bearer_unavailable");
      return "unavailable";
    }
  }

  /** Verifies an `Authorization` header value; throws the 401 or the 503. */
  async verify(header: string | null): Promise<AuthResult> {
    const result = await this.check(header);
    if (result === "unauthorized") throw unauthorized();
    if (result === "unavailable") throw authUnavailable();
    return result;
  }

  /**
   * Whether a credential that was valid is still not revoked (for long-lived streams opened with it).
   * Revocation, a revoked grant or an invalidated credential ends an open stream; expiry is checked by the
   * stream registry itself from `expiresAt` (server/streams.ts).
   */
  async stillValid(auth: AuthResult): Promise<boolean> {
    const id = auth.credentialId;
    const { personalAccessTokens, oauthAccessTokens, oauthGrants, serviceCredentials, sessions, webSessions } = this.db.t;
    switch (auth.family) {
      case "pat":
        return (await first(this.db.select({ id: personalAccessTokens.id }).from(personalAccessTokens).where(and(eq(personalAccessTokens.id, id), eq(personalAccessTokens.revoked, false))))) !== undefined;
      case "oat": {
        const row = await first(this.db.select({ revokedAt: oauthAccessTokens.revokedAt, grantRevoked: oauthGrants.revokedAt }).from(oauthAccessTokens).leftJoin(oauthGrants, eq(oauthGrants.id, oauthAccessTokens.grantId)).where(eq(oauthAccessTokens.id, id)));
        return row !== undefined && row.revokedAt === null && row.grantRevoked == null;
      }
      case "dsc": {
        const row = await first(this.db.select({ state: serviceCredentials.state, current: sessions.currentGenerationId }).from(serviceCredentials).innerJoin(sessions, eq(sessions.id, serviceCredentials.sessionId)).where(eq(serviceCredentials.generationId, id)));
        return row !== undefined && row.state !== "invalidated" && row.current === id;
      }
      case "web":
        return (await first(this.db.select({ id: webSessions.id }).from(webSessions).where(and(eq(webSessions.id, id), isNull(webSessions.revokedAt))))) !== undefined;
      case "hst":
        return this.hosts.live(id);
    }
  }

  private async pat(token: string): Promise<AuthResult | undefined> {
    const info = await this.pats.use(token);
    if (!info) return undefined;
    // One result per cached token record: no allocation per request on the hot path.
    let result = this.patResults.get(info);
    if (!result) {
      result = { family: "pat", principalId: info.principalId, username: info.username, scopes: [...ALL_SCOPES], credentialId: info.id };
      this.patResults.set(info, result);
    }
    return result;
  }

  private async oat(token: string): Promise<AuthResult | undefined> {
    const hash = tokenHash(token);
    let hit = this.oatCache.get(hash);
    const since = this.oatCache.since;
    if (hit === undefined) {
      const row = (await this.oatByHash.execute({ hash }))[0];
      hit =
        row && row.grantRevoked == null
          ? { expiresAt: row.t.expiresAt, result: { family: "oat", principalId: row.t.principalId, username: row.username, scopes: row.t.scopes, credentialId: row.t.id, expiresAt: row.t.expiresAt } }
          : null;
      this.oatCache.set(hash, hit, since);
    }
    return hit !== null && hit.expiresAt > this.clock.now() ? hit.result : undefined;
  }

  /** `dsc_<generation id>.<secret>`: the id finds the row, the HMAC of the whole token must match. */
  private async dsc(token: string): Promise<AuthResult | undefined> {
    const dot = token.indexOf(".");
    if (dot < 0) return undefined;
    const generationId = token.slice(4, dot);
    const { serviceCredentials, sessions } = this.db.t;
    const row = await first(
      this.db
      .select({ c: serviceCredentials, current: sessions.currentGenerationId })
      .from(serviceCredentials)
      .innerJoin(sessions, eq(sessions.id, serviceCredentials.sessionId))
        .where(eq(serviceCredentials.generationId, generationId)),
    );
    const expected = serviceCredentialVerifier(this.pepper, token);
    // Compare even when no row exists so the timing does not reveal whether the id is known.
    const ok = constantTimeEqualHex(row?.c.verifier ?? "00".repeat(32), expected);
    if (!row || !ok || row.c.state === "invalidated" || row.current !== generationId) return undefined;
    const now = this.clock.now();
    // Coarse last-used updates, as for PATs: a write on every daemon request would also empty the token caches.
    if (row.c.state === "pending" || row.c.lastUsedAt === null || now - row.c.lastUsedAt > 60_000) {
      await this.db
        .update(serviceCredentials)
        .set(row.c.state === "pending" ? { state: "active", activatedAt: now, lastUsedAt: now } : { lastUsedAt: now })
        .where(eq(serviceCredentials.generationId, generationId));
    }
    return { family: "dsc", principalId: null, username: null, scopes: ["current_session"], credentialId: generationId, sessionId: row.c.sessionId };
  }
}
