// OAuth access and refresh tokens: `oat_`/`rt_` + 256 random bits, only SHA-256 stored. Refresh tokens
// rotate on every use; a rotated token presented again revokes its whole family (the grant) with every
// access token issued under it (RFC 9700 §4.14.2).
import { and, eq, isNull, sql } from "drizzle-orm";
import type { OAuthTokenResponse } from "../../protocol/oauth-token.ts";
import type { Clock } from "../../util/clock.ts";
import type { GatewayConfig } from "../config/types.ts";
import type { GatewayDb } from "../db/open.ts";
import { oauthAccessTokens, oauthGrants, oauthRefreshTokens } from "../db/schema.ts";
import { newId, newSecret, sha256Hex } from "../../util/ids.ts";
import { OAuthError, narrowScopes } from "./http.ts";

export type TokenResponse = OAuthTokenResponse;

export interface AccessSubject {
  clientId: string;
  principalId: string;
  grantId: string | null;
  scopes: string[];
}

type OAuthTtl = GatewayConfig["auth"]["oauth"];

export class OAuthTokens {
  private readonly insertAccess;
  private readonly pending: Array<{ row: ReturnType<OAuthTokens["accessRow"]>["row"]; done: (error?: Error) => void }> = [];

  constructor(private readonly db: GatewayDb, private readonly clock: Clock, private readonly ttl: OAuthTtl) {
    // client_credentials issuance is a hot path: prepared once.
    this.insertAccess = db
      .insert(oauthAccessTokens)
      .values({
        id: sql.placeholder("id"),
        tokenHash: sql.placeholder("tokenHash"),
        grantId: sql.placeholder("grantId"),
        clientId: sql.placeholder("clientId"),
        principalId: sql.placeholder("principalId"),
        scopes: sql.placeholder("scopes"),
        createdAt: sql.placeholder("createdAt"),
        expiresAt: sql.placeholder("expiresAt"),
      })
      .prepare();
  }

  /** An access token for `subject`, stored before this returns (inside the caller's transaction, if any). */
  issueAccess(subject: AccessSubject): TokenResponse {
    const { row, response } = this.accessRow(subject);
    this.insertAccess.run(row);
    return response;
  }

  /**
   * The same, with group commit: tokens requested in one turn of the event loop are stored in one
   * transaction, and each answer waits for that commit. client_credentials is the hot path (machines asking
   * in bursts), and a commit costs far more than the rows in it.
   */
  issueAccessBatched(subject: AccessSubject): Promise<TokenResponse> {
    const { row, response } = this.accessRow(subject);
    return new Promise((resolve, reject) => {
      this.pending.push({ row, done: (error) => (error ? reject(error) : resolve(response)) });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.pending.splice(0);
    try {
      this.db.transaction(() => {
        for (const item of batch) this.insertAccess.run(item.row);
      });
    } catch (error) {
      for (const item of batch) item.done(error as Error);
      return;
    }
    for (const item of batch) item.done();
  }

  private accessRow(subject: AccessSubject) {
    const now = this.clock.now();
    const token = newSecret("oat");
    const row = {
      id: newId("atk", now),
      tokenHash: sha256Hex(token),
      grantId: subject.grantId,
      clientId: subject.clientId,
      principalId: subject.principalId,
      scopes: subject.scopes,
      createdAt: now,
      expiresAt: now + this.ttl.access_token_ttl_secs * 1000,
    };
    const response: TokenResponse = { access_token: token, token_type: "Bearer", expires_in: this.ttl.access_token_ttl_secs, scope: subject.scopes.join(" ") };
    return { row, response };
  }

  /**
   * A new grant (a device approval or a sign-in turned into tokens): access token, plus a refresh family when
   * allowed. `grantId` is given when the grant's id must be found again later (device codes).
   */
  issueGrant(clientId: string, principalId: string, scopes: string[], withRefresh: boolean, grantId?: string): { grantId: string; tokens: TokenResponse } {
    return this.db.transaction(() => {
      const now = this.clock.now();
      grantId ??= newId("grt", now);
      this.db.insert(oauthGrants).values({ id: grantId, clientId, principalId, scopes, createdAt: now }).run();
      const tokens = this.issueAccess({ clientId, principalId, grantId, scopes });
      if (withRefresh) {
        const absolute = now + this.ttl.refresh_token_absolute_secs * 1000;
        tokens.refresh_token = this.insertRefresh(grantId, newId("fam", now), null, absolute);
      }
      return { grantId, tokens };
    });
  }

  private insertRefresh(grantId: string, familyId: string, parentId: string | null, absoluteExpiry: number): string {
    const now = this.clock.now();
    const token = newSecret("rt");
    this.db
      .insert(oauthRefreshTokens)
      .values({
        id: newId("rtk", now),
        tokenHash: sha256Hex(token),
        grantId,
        familyId,
        parentId,
        createdAt: now,
        expiresAt: absoluteExpiry,
        idleExpiresAt: Math.min(absoluteExpiry, now + this.ttl.refresh_token_idle_secs * 1000),
      })
      .run();
    return token;
  }

  /**
   * The refresh_token grant: bound to its client, scope may narrow but never widen, rotation on every use.
   * `onReuse` is told when a rotated token came back and its family was revoked.
   */
  refresh(clientId: string, token: string, requested: string[] | undefined, onReuse: (grantId: string, principalId: string) => void): TokenResponse {
    const now = this.clock.now();
    const found = this.db
      .select({ rt: oauthRefreshTokens, grant: oauthGrants })
      .from(oauthRefreshTokens)
      .innerJoin(oauthGrants, eq(oauthGrants.id, oauthRefreshTokens.grantId))
      .where(eq(oauthRefreshTokens.tokenHash, sha256Hex(token)))
      .get();
    if (!found || found.grant.clientId !== clientId) throw new OAuthError("invalid_grant", "the refresh token is unknown or was issued to another client");
    const { rt, grant } = found;
    if (rt.revokedAt !== null || grant.revokedAt !== null) throw new OAuthError("invalid_grant", "the refresh token was revoked");
    const reused = () => {
      this.revokeGrant(grant.id);
      onReuse(grant.id, grant.principalId);
      return new OAuthError("invalid_grant", "the refresh token was already used; every token of its grant is now revoked");
    };
    if (rt.usedAt !== null) throw reused();
    if (now >= rt.expiresAt || now >= rt.idleExpiresAt) throw new OAuthError("invalid_grant", "the refresh token has expired");
    const scopes = narrowScopes(requested, grant.scopes);
    const rotated = this.db.transaction(() => {
      // The claim is atomic: of concurrent refreshes with one token exactly one wins; the others are reuse.
      const claimed = this.db
        .update(oauthRefreshTokens)
        .set({ usedAt: now })
        .where(and(eq(oauthRefreshTokens.id, rt.id), isNull(oauthRefreshTokens.usedAt), isNull(oauthRefreshTokens.revokedAt)))
        .returning({ id: oauthRefreshTokens.id })
        .all();
      if (claimed.length === 0) return undefined;
      const tokens = this.issueAccess({ clientId, principalId: grant.principalId, grantId: grant.id, scopes });
      tokens.refresh_token = this.insertRefresh(grant.id, rt.familyId, rt.id, rt.expiresAt);
      return tokens;
    });
    if (!rotated) throw reused();
    return rotated;
  }

  /** Revokes a grant with every access and refresh token under it. */
  revokeGrant(grantId: string): void {
    const now = this.clock.now();
    this.db.transaction(() => {
      this.db.update(oauthGrants).set({ revokedAt: now }).where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt))).run();
      this.db.update(oauthAccessTokens).set({ revokedAt: now }).where(and(eq(oauthAccessTokens.grantId, grantId), isNull(oauthAccessTokens.revokedAt))).run();
      this.db.update(oauthRefreshTokens).set({ revokedAt: now }).where(and(eq(oauthRefreshTokens.grantId, grantId), isNull(oauthRefreshTokens.revokedAt))).run();
    });
  }

  /**
   * RFC 7009: revokes `token` when it belongs to `clientId` (an access token alone; a refresh token with its
   * whole grant). Unknown tokens and other clients' tokens are left alone, silently. Returns what was revoked.
   */
  revoke(clientId: string, token: string): { kind: "access" | "refresh"; principalId: string; id: string } | undefined {
    const hash = sha256Hex(token);
    const now = this.clock.now();
    const access = this.db.select().from(oauthAccessTokens).where(eq(oauthAccessTokens.tokenHash, hash)).get();
    if (access) {
      if (access.clientId !== clientId) return undefined;
      if (access.revokedAt === null) this.db.update(oauthAccessTokens).set({ revokedAt: now }).where(eq(oauthAccessTokens.id, access.id)).run();
      return { kind: "access", principalId: access.principalId, id: access.id };
    }
    const refresh = this.db
      .select({ rt: oauthRefreshTokens, grant: oauthGrants })
      .from(oauthRefreshTokens)
      .innerJoin(oauthGrants, eq(oauthGrants.id, oauthRefreshTokens.grantId))
      .where(eq(oauthRefreshTokens.tokenHash, hash))
      .get();
    if (!refresh || refresh.grant.clientId !== clientId) return undefined;
    this.revokeGrant(refresh.grant.id);
    return { kind: "refresh", principalId: refresh.grant.principalId, id: refresh.grant.id };
  }
}
