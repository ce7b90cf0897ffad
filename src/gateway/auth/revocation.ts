// Revoking what a principal holds: OAuth grants with their access and refresh tokens, PATs, sessions.
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { GatewayDb } from "../db/open.ts";
import { oauthAccessTokens, oauthClients, oauthGrants, oauthRefreshTokens } from "../db/schema.ts";

export interface GrantInfo {
  id: string;
  clientId: string;
  clientName: string;
  scopes: string[];
  createdAt: number;
}

export function listGrants(db: GatewayDb, principalId: string): GrantInfo[] {
  return db
    .select({ id: oauthGrants.id, clientId: oauthGrants.clientId, clientName: oauthClients.name, scopes: oauthGrants.scopes, createdAt: oauthGrants.createdAt })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .where(and(eq(oauthGrants.principalId, principalId), isNull(oauthGrants.revokedAt)))
    .all();
}

/** Revokes grants (one, or all of the principal's) and every access and refresh token issued under them. */
export function revokeGrants(db: GatewayDb, clock: Clock, principalId: string, grantId?: string): number {
  const now = clock.now();
  return db.transaction((tx) => {
    const where = and(eq(oauthGrants.principalId, principalId), isNull(oauthGrants.revokedAt), grantId ? eq(oauthGrants.id, grantId) : undefined);
    const ids = tx.select({ id: oauthGrants.id }).from(oauthGrants).where(where).all().map((g) => g.id);
    if (!grantId) {
      tx.update(oauthAccessTokens).set({ revokedAt: now }).where(and(eq(oauthAccessTokens.principalId, principalId), isNull(oauthAccessTokens.revokedAt))).run();
    }
    if (ids.length === 0) return 0;
    tx.update(oauthGrants).set({ revokedAt: now }).where(inArray(oauthGrants.id, ids)).run();
    tx.update(oauthAccessTokens).set({ revokedAt: now }).where(and(inArray(oauthAccessTokens.grantId, ids), isNull(oauthAccessTokens.revokedAt))).run();
    tx.update(oauthRefreshTokens).set({ revokedAt: now }).where(and(inArray(oauthRefreshTokens.grantId, ids), isNull(oauthRefreshTokens.revokedAt))).run();
    return ids.length;
  });
}
