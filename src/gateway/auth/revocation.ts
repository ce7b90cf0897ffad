// Revoking what a principal holds: OAuth grants with their access and refresh tokens, and what the
// confidential clients it registered hold; everything at once when its password changes.
import { and, eq, inArray, isNotNull, isNull, ne } from "drizzle-orm";
import type { Clock } from "../../util/clock.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayDb } from "../db/open.ts";

export interface GrantInfo {
  id: string;
  clientId: string;
  clientName: string;
  scopes: string[];
  createdAt: number;
}

export async function listGrants(db: GatewayDb, principalId: string): Promise<GrantInfo[]> {
  const { oauthGrants, oauthClients } = db.t;
  return db
    .select({ id: oauthGrants.id, clientId: oauthGrants.clientId, clientName: oauthClients.name, scopes: oauthGrants.scopes, createdAt: oauthGrants.createdAt })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .where(and(eq(oauthGrants.principalId, principalId), isNull(oauthGrants.revokedAt)));
}

/**
 * Revokes grants (one, or all of the principal's) and every access and refresh token issued under them.
 * A confidential client registered with a principal's token holds a registration grant of that principal
 * (oauth-clients.ts); revoking it also revokes what the client's machine principal holds, including grants
 * of clients it registered in turn. Returns how many of the principal's own grants were revoked.
 */
export async function revokeGrants(db: GatewayDb, clock: Clock, principalId: string, grantId?: string): Promise<number> {
  const now = clock.now();
  return db.tx(async (tx) => {
    const { oauthGrants, oauthAccessTokens, oauthRefreshTokens, oauthClients } = tx.t;
    const where = and(eq(oauthGrants.principalId, principalId), isNull(oauthGrants.revokedAt), grantId ? eq(oauthGrants.id, grantId) : undefined);
    const ids = (await tx.select({ id: oauthGrants.id }).from(oauthGrants).where(where)).map((g) => g.id);
    if (!grantId) {
      await tx.update(oauthAccessTokens).set({ revokedAt: now }).where(and(eq(oauthAccessTokens.principalId, principalId), isNull(oauthAccessTokens.revokedAt)));
    }
    let batch = ids;
    const seen = new Set<string>([principalId]);
    while (batch.length > 0) {
      await tx.update(oauthGrants).set({ revokedAt: now }).where(inArray(oauthGrants.id, batch));
      await tx.update(oauthAccessTokens).set({ revokedAt: now }).where(and(inArray(oauthAccessTokens.grantId, batch), isNull(oauthAccessTokens.revokedAt)));
      await tx.update(oauthRefreshTokens).set({ revokedAt: now }).where(and(inArray(oauthRefreshTokens.grantId, batch), isNull(oauthRefreshTokens.revokedAt)));
      // Machine principals of confidential clients whose registration grant was just revoked.
      const machines = (
        await tx
          .selectDistinct({ id: oauthClients.principalId })
          .from(oauthGrants)
          .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
          .where(and(inArray(oauthGrants.id, batch), eq(oauthClients.clientType, "confidential"), isNotNull(oauthClients.principalId)))
      )
        .map((m) => m.id!)
        .filter((m) => !seen.has(m));
      if (machines.length === 0) break;
      for (const m of machines) seen.add(m);
      await tx.update(oauthAccessTokens).set({ revokedAt: now }).where(and(inArray(oauthAccessTokens.principalId, machines), isNull(oauthAccessTokens.revokedAt)));
      batch = (await tx.select({ id: oauthGrants.id }).from(oauthGrants).where(and(inArray(oauthGrants.principalId, machines), isNull(oauthGrants.revokedAt)))).map((g) => g.id);
    }
    return ids.length;
  });
}

/** What a password change or reset uses. */
export type PasswordChangeDeps = Pick<GatewayContext, "db" | "clock" | "principals" | "pats" | "streams">;

/** How many of each credential a password change or reset revoked. */
export interface PasswordRevocations {
  webSessions: number;
  oauthGrants: number;
  personalAccessTokens: number;
}

/**
 * A password change (the dashboard) or reset (`agent gateway principal set-password` / `remove-password`):
 * stores the new hash, or removes the password (`hash` null), and in the same transaction revokes what the
 * old password could have handed out: the principal's browser sessions except `keepWebSession` (the one
 * that made the change), its OAuth grants with their tokens and what confidential clients registered under
 * them hold (revokeGrants), and its personal access tokens. Streams opened with those close at the next
 * sweep (at once in this process). Removing a password the principal does not have changes nothing and
 * returns undefined.
 */
export async function replacePassword(deps: PasswordChangeDeps, principalId: string, hash: string | null, keepWebSession?: string): Promise<PasswordRevocations | undefined> {
  const now = deps.clock.now();
  const revoked = await deps.db.tx(async (tx) => {
    if (hash === null) {
      if (!(await deps.principals.removePassword(principalId, tx))) return undefined;
    } else {
      await deps.principals.setPasswordHash(principalId, hash, tx);
    }
    const { webSessions } = tx.t;
    const sessions = (
      await tx
      .update(webSessions)
      .set({ revokedAt: now })
      .where(and(eq(webSessions.principalId, principalId), isNull(webSessions.revokedAt), keepWebSession === undefined ? undefined : ne(webSessions.id, keepWebSession)))
        .returning({ id: webSessions.id })
    ).length;
    return { webSessions: sessions, oauthGrants: await revokeGrants(tx, deps.clock, principalId), personalAccessTokens: await deps.pats.revokeAll(principalId, tx) };
  });
  if (revoked) await deps.streams.sweep();
  return revoked;
}
