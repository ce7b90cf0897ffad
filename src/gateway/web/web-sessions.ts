// Browser sessions: a random 256-bit cookie secret (only its SHA-256 is stored), a per-session CSRF token,
// idle and absolute timeouts on the injected clock, server-side revocation.
import { randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/open.ts";
import { webSessions } from "../db/schema.ts";
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
  create(principalId: string, sourceIp: string, userAgent: string | null): { session: WebSession; secret: string } {
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
    this.db.insert(webSessions).values({ ...session, sessionHash: sha256Hex(secret) }).run();
    return { session, secret };
  }

  /** The live session for a cookie secret; touches it. Expired sessions are revoked on sight. */
  resolve(secret: string | undefined): WebSession | undefined {
    if (!secret || secret.length > 100) return undefined;
    const row = this.db.select().from(webSessions).where(eq(webSessions.sessionHash, sha256Hex(secret))).get();
    if (!row || row.revokedAt !== null) return undefined;
    const now = this.clock.now();
    if (now - row.lastSeenAt >= this.timeouts.idle_secs * 1000 || now - row.createdAt >= this.timeouts.absolute_secs * 1000) {
      this.db.update(webSessions).set({ revokedAt: now }).where(eq(webSessions.id, row.id)).run();
      return undefined;
    }
    this.db.update(webSessions).set({ lastSeenAt: now }).where(eq(webSessions.id, row.id)).run();
    return { id: row.id, principalId: row.principalId, csrfToken: row.csrfToken, createdAt: row.createdAt, lastSeenAt: now, sourceIp: row.sourceIp, userAgent: row.userAgent };
  }

  /** Live sessions of a principal (expired ones excluded). */
  list(principalId: string): WebSession[] {
    const now = this.clock.now();
    return this.db
      .select()
      .from(webSessions)
      .where(and(eq(webSessions.principalId, principalId), isNull(webSessions.revokedAt)))
      .all()
      .filter((r) => now - r.lastSeenAt < this.timeouts.idle_secs * 1000 && now - r.createdAt < this.timeouts.absolute_secs * 1000)
      .sort((a, b) => b.lastSeenAt - a.lastSeenAt)
      .map((r) => ({ id: r.id, principalId: r.principalId, csrfToken: r.csrfToken, createdAt: r.createdAt, lastSeenAt: r.lastSeenAt, sourceIp: r.sourceIp, userAgent: r.userAgent }));
  }

  revoke(principalId: string, id: string): boolean {
    return this.db
      .update(webSessions)
      .set({ revokedAt: this.clock.now() })
      .where(and(eq(webSessions.id, id), eq(webSessions.principalId, principalId), isNull(webSessions.revokedAt)))
      .returning({ id: webSessions.id })
      .all().length > 0;
  }

  setFlash(id: string, flash: string): void {
    this.db.update(webSessions).set({ flash }).where(eq(webSessions.id, id)).run();
  }

  /** Reads and clears the one-time message. */
  takeFlash(id: string): string | undefined {
    const row = this.db.select({ flash: webSessions.flash }).from(webSessions).where(eq(webSessions.id, id)).get();
    if (!row?.flash) return undefined;
    this.db.update(webSessions).set({ flash: null }).where(eq(webSessions.id, id)).run();
    return row.flash;
  }
}
