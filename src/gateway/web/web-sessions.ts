// Browser sessions: a random 256-bit cookie secret (only its SHA-256 is stored), a per-session CSRF token,
// idle and absolute timeouts on the injected clock, server-side revocation.
import { randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/open.ts";
import { first } from "../db/handle.ts";
import { newId, sha256Hex } from "../../util/ids.ts";

export interface WebSession {
  id: string;
  principalId: string;
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
  sourceIp: string | null;
  userAgent: string | null;
}

export class WebSessionStore {
  constructor(
    private readonly db: GatewayDb,
    private readonly clock: Clock,
    private readonly timeouts: { idle_secs: number; absolute_secs: number },
  ) {}

  /** A new session (new id at every login); returns the cookie secret once. */
  async create(principalId: string, sourceIp: string, userAgent: string | null): Promise<{ session: WebSession; secret: string }> {
    const now = this.clock.now();
    const secret = randomBytes(32).toString("base64url");
    const session: WebSession = {
      id: newId("wss", now),
      principalId,
      csrfToken: randomBytes(32).toString("base64url"),
      createdAt: now,
      lastSeenAt: now,
      sourceIp,
      userAgent: userAgent?.slice(0, 200) ?? null,
    };
    await this.db.insert(this.db.t.webSessions).values({ ...session, sessionHash: sha256Hex(secret) });
    return { session, secret };
  }

  /** The live session for a cookie secret; touches it. Expired sessions are revoked on sight. */
  async resolve(secret: string | undefined): Promise<WebSession | undefined> {
    if (!secret || secret.length > 100) return undefined;
    const row = await first(this.db.select().from(this.db.t.webSessions).where(eq(this.db.t.webSessions.sessionHash, sha256Hex(secret))));
    if (!row || row.revokedAt !== null) return undefined;
    const now = this.clock.now();
    if (now - row.lastSeenAt >= this.timeouts.idle_secs * 1000 || now - row.createdAt >= this.timeouts.absolute_secs * 1000) {
      await this.db.update(this.db.t.webSessions).set({ revokedAt: now }).where(eq(this.db.t.webSessions.id, row.id));
      return undefined;
    }
    await this.db.update(this.db.t.webSessions).set({ lastSeenAt: now }).where(eq(this.db.t.webSessions.id, row.id));
    return { id: row.id, principalId: row.principalId, csrfToken: row.csrfToken, createdAt: row.createdAt, lastSeenAt: now, sourceIp: row.sourceIp, userAgent: row.userAgent };
  }

  /** Live sessions of a principal (expired ones excluded). */
  async list(principalId: string): Promise<WebSession[]> {
    const now = this.clock.now();
    return (await this.db
      .select()
      .from(this.db.t.webSessions)
      .where(and(eq(this.db.t.webSessions.principalId, principalId), isNull(this.db.t.webSessions.revokedAt)))
      )
      .filter((r) => now - r.lastSeenAt < this.timeouts.idle_secs * 1000 && now - r.createdAt < this.timeouts.absolute_secs * 1000)
      .sort((a, b) => b.lastSeenAt - a.lastSeenAt)
      .map((r) => ({ id: r.id, principalId: r.principalId, csrfToken: r.csrfToken, createdAt: r.createdAt, lastSeenAt: r.lastSeenAt, sourceIp: r.sourceIp, userAgent: r.userAgent }));
  }

  async revoke(principalId: string, id: string): Promise<boolean> {
    return (await this.db
      .update(this.db.t.webSessions)
      .set({ revokedAt: this.clock.now() })
      .where(and(eq(this.db.t.webSessions.id, id), eq(this.db.t.webSessions.principalId, principalId), isNull(this.db.t.webSessions.revokedAt)))
      .returning({ id: this.db.t.webSessions.id })
      ).length > 0;
  }

  async setFlash(id: string, flash: string): Promise<void> {
    await this.db.update(this.db.t.webSessions).set({ flash }).where(eq(this.db.t.webSessions.id, id));
  }

  /** Reads and clears the one-time message. */
  async takeFlash(id: string): Promise<string | undefined> {
    const row = await first(this.db.select({ flash: this.db.t.webSessions.flash }).from(this.db.t.webSessions).where(eq(this.db.t.webSessions.id, id)));
    if (!row?.flash) return undefined;
    await this.db.update(this.db.t.webSessions).set({ flash: null }).where(eq(this.db.t.webSessions.id, id));
    return row.flash;
  }
}
