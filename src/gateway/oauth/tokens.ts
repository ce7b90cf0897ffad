// OAuth access and refresh tokens: `oat_`/`rt_` + 256 random bits, only SHA-256 stored. Refresh tokens
// rotate on every use; a rotated token presented again revokes its whole family (the grant) with every
// access token issued under it (RFC 9700 §4.14.2).
import { and, eq, isNull, sql } from "drizzle-orm";
import type { OAuthTokenResponse } from "../../protocol/oauth-token.ts";
import type { Clock } from "../../util/clock.ts";
import type { GatewayConfig } from "../config/types.ts";
import type { GatewayDb } from "../db/open.ts";
import { first } from "../db/handle.ts";
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

/** Thrown inside a rotation's transaction whose claim lost, to roll back the tokens written beside it. */
class LostClaim extends Error {}

export class OAuthTokens {
  private readonly insertAccess;
  private readonly refreshByHash;
  private readonly pending: Array<{ row: ReturnType<OAuthTokens["accessRow"]>["row"]; done: (error?: Error) => void }> = [];

  constructor(private readonly db: GatewayDb, private readonly clock: Clock, private readonly ttl: OAuthTtl) {
    // client_credentials issuance and refresh are hot paths: prepared once.
    this.insertAccess = db
      .insert(db.t.oauthAccessTokens)
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
      .prepare("access_token_insert");
    const { oauthRefreshTokens, oauthGrants } = db.t;
    this.refreshByHash = db
      .select({ rt: oauthRefreshTokens, grant: oauthGrants })
      .from(oauthRefreshTokens)
      .innerJoin(oauthGrants, eq(oauthGrants.id, oauthRefreshTokens.grantId))
      .where(eq(oauthRefreshTokens.tokenHash, sql.placeholder("hash")))
      .prepare("refresh_token_by_hash");
  }

  /** An access token for `subject`, stored before this returns (inside the transaction `db`, if one is given). */
  async issueAccess(subject: AccessSubject, db: GatewayDb = this.db): Promise<TokenResponse> {
    const { row, response } = this.accessRow(subject);
    if (db === this.db) await this.insertAccess.execute(row);
    else await db.insert(db.t.oauthAccessTokens).values(row);
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
      if (this.pending.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending.splice(0);
    try {
      // Multi-row inserts, in chunks under SQLite's limit of bound values per statement. One chunk is one
      // statement, atomic by itself (no BEGIN/COMMIT round trips); more are one transaction. New rows
      // only: nothing to serialize with other transactions.
      const CHUNK = 500;
      const rows = batch.map((item) => item.row);
      if (rows.length <= CHUNK) await this.db.insert(this.db.t.oauthAccessTokens).values(rows);
      else {
        await this.db.tx(
          async (tx) => {
            for (let i = 0; i < rows.length; i += CHUNK) await tx.insert(tx.t.oauthAccessTokens).values(rows.slice(i, i + CHUNK));
          },
          { serialized: false },
        );
      }
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
   * allowed. `grantId` is given when the grant's id must be found again later (device codes). `db`: the
   * caller's transaction, if any.
   */
  async issueGrant(clientId: string, principalId: string, scopes: string[], withRefresh: boolean, grantId?: string, db: GatewayDb = this.db): Promise<{ grantId: string; tokens: TokenResponse }> {
    // New rows only (a caller's transaction, joined, serializes what it needs itself).
    return db.tx(
      async (tx) => {
        const now = this.clock.now();
        grantId ??= newId("grt", now);
        await tx.insert(tx.t.oauthGrants).values({ id: grantId, clientId, principalId, scopes, createdAt: now });
        const tokens = await this.issueAccess({ clientId, principalId, grantId, scopes }, tx);
        if (withRefresh) {
          const absolute = now + this.ttl.refresh_token_absolute_secs * 1000;
          tokens.refresh_token = await this.insertRefresh(tx, grantId, newId("fam", now), null, absolute);
        }
        return { grantId, tokens };
      },
      { serialized: false },
    );
  }

  private async insertRefresh(tx: GatewayDb, grantId: string, familyId: string, parentId: string | null, absoluteExpiry: number): Promise<string> {
    const now = this.clock.now();
    const token = newSecret("rt");
    await tx.insert(tx.t.oauthRefreshTokens).values({
      id: newId("rtk", now),
      tokenHash: sha256Hex(token),
      grantId,
      familyId,
      parentId,
      createdAt: now,
      expiresAt: absoluteExpiry,
      idleExpiresAt: Math.min(absoluteExpiry, now + this.ttl.refresh_token_idle_secs * 1000),
    });
    return token;
  }

  /**
   * The refresh_token grant: bound to its client, scope may narrow but never widen, rotation on every use.
   * `onReuse` is told when a rotated token came back and its family was revoked.
   */
  async refresh(clientId: string, token: string, requested: string[] | undefined, onReuse: (grantId: string, principalId: string) => Promise<void>): Promise<TokenResponse> {
    const now = this.clock.now();
    const found = (await this.refreshByHash.execute({ hash: sha256Hex(token) }))[0];
    if (!found || found.grant.clientId !== clientId) throw new OAuthError("invalid_grant", "the refresh token is unknown or was issued to another client");
    const { rt, grant } = found;
    if (rt.revokedAt !== null || grant.revokedAt !== null) throw new OAuthError("invalid_grant", "the refresh token was revoked");
    const reused = async () => {
      await this.revokeGrant(grant.id);
      await onReuse(grant.id, grant.principalId);
      return new OAuthError("invalid_grant", "the refresh token was already used; every token of its grant is now revoked");
    };
    if (rt.usedAt !== null) throw await reused();
    if (now >= rt.expiresAt || now >= rt.idleExpiresAt) throw new OAuthError("invalid_grant", "the refresh token has expired");
    const scopes = narrowScopes(requested, grant.scopes);
    // Not serialized with other transactions: the claim below decides by itself (decision 64).
    const rotated = await this.db
      .tx(
        async (tx) => {
          const { oauthRefreshTokens } = tx.t;
          // The claim is atomic: of concurrent refreshes with one token exactly one wins (on PostgreSQL the
          // others wait for its row lock, then find used_at set); the others are reuse. The new tokens are
          // written beside the claim (PostgreSQL pipelines the three statements on the transaction's
          // connection: one round trip) and rolled back with it when it is lost.
          const [claimed, tokens, refreshToken] = await Promise.all([
            tx
              .update(oauthRefreshTokens)
              .set({ usedAt: now })
              .where(and(eq(oauthRefreshTokens.id, rt.id), isNull(oauthRefreshTokens.usedAt), isNull(oauthRefreshTokens.revokedAt)))
              .returning({ id: oauthRefreshTokens.id }),
            this.issueAccess({ clientId, principalId: grant.principalId, grantId: grant.id, scopes }, tx),
            this.insertRefresh(tx, grant.id, rt.familyId, rt.id, rt.expiresAt),
          ]);
          if (claimed.length === 0) throw new LostClaim();
          tokens.refresh_token = refreshToken;
          return tokens;
        },
        { serialized: false },
      )
      .catch((error: unknown) => {
        if (error instanceof LostClaim) return undefined;
        throw error;
      });
    if (!rotated) throw await reused();
    return rotated;
  }

  /** Revokes a grant with every access and refresh token under it. */
  async revokeGrant(grantId: string): Promise<void> {
    const now = this.clock.now();
    await this.db.tx(async (tx) => {
      const { oauthGrants, oauthAccessTokens, oauthRefreshTokens } = tx.t;
      await tx.update(oauthGrants).set({ revokedAt: now }).where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)));
      await tx.update(oauthAccessTokens).set({ revokedAt: now }).where(and(eq(oauthAccessTokens.grantId, grantId), isNull(oauthAccessTokens.revokedAt)));
      await tx.update(oauthRefreshTokens).set({ revokedAt: now }).where(and(eq(oauthRefreshTokens.grantId, grantId), isNull(oauthRefreshTokens.revokedAt)));
    });
  }

  /**
   * RFC 7009: revokes `token` when it belongs to `clientId` (an access token alone; a refresh token with its
   * whole grant). Unknown tokens and other clients' tokens are left alone, silently. Returns what was revoked.
   */
  async revoke(clientId: string, token: string): Promise<{ kind: "access" | "refresh"; principalId: string; id: string } | undefined> {
    const hash = sha256Hex(token);
    const now = this.clock.now();
    const { oauthAccessTokens, oauthRefreshTokens, oauthGrants } = this.db.t;
    const access = await first(this.db.select().from(oauthAccessTokens).where(eq(oauthAccessTokens.tokenHash, hash)));
    if (access) {
      if (access.clientId !== clientId) return undefined;
      if (access.revokedAt === null) await this.db.update(oauthAccessTokens).set({ revokedAt: now }).where(eq(oauthAccessTokens.id, access.id));
      return { kind: "access", principalId: access.principalId, id: access.id };
    }
    const refresh = await first(
      this.db
        .select({ rt: oauthRefreshTokens, grant: oauthGrants })
        .from(oauthRefreshTokens)
        .innerJoin(oauthGrants, eq(oauthGrants.id, oauthRefreshTokens.grantId))
        .where(eq(oauthRefreshTokens.tokenHash, hash)),
    );
    if (!refresh || refresh.grant.clientId !== clientId) return undefined;
    await this.revokeGrant(refresh.grant.id);
    return { kind: "refresh", principalId: refresh.grant.principalId, id: refresh.grant.id };
  }
}
