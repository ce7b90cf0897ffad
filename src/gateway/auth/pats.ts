// Personal access tokens: `pat_` + 256 random bits, shown once; only the SHA-256 is stored.
import { and, desc, eq, sql } from "drizzle-orm";
import type { Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/open.ts";
import type { personalAccessTokens } from "../db/schema.ts";
import { first } from "../db/handle.ts";
import { newId, newSecret, sha256Hex } from "../../util/ids.ts";
import { tokenHash, VerifiedCache, type DbStamp } from "./verified-cache.ts";

export interface PatInfo {
  id: string;
  principalId: string;
  label: string;
  createdAt: number;
  lastUsedAt: number | null;
  revoked: boolean;
}

export class PatError extends Error {
  constructor(message: string, readonly kind: "invalid" | "not_found") {
    super(message);
    this.name = "PatError";
  }
}

export function checkLabel(label: string): void {
  if (label.trim() === "") throw new PatError("a token label must not be empty", "invalid");
  if (label.length > 100) throw new PatError("a token label is limited to 100 characters", "invalid");
  if (/[\u0000-\u001f\u007f-\u009f]/.test(label)) throw new PatError("a token label must not contain control characters", "invalid");
}

export type LivePat = PatInfo & { username: string };

export class PatStore {
  // The bearer hot path: prepared once (drizzle's unprepared builder costs more than the lookup itself).
  private readonly byHash;
  private readonly touch;
  /** Verified tokens (and misses) by hash: docs/decisions-gateway.md 12. */
  private readonly cache: VerifiedCache<LivePat>;

  constructor(private readonly db: GatewayDb, private readonly clock: Clock, stamp: DbStamp) {
    this.cache = new VerifiedCache(stamp);
    const { personalAccessTokens, principals } = db.t;
    this.byHash = db
      .select({ pat: personalAccessTokens, username: principals.username })
      .from(personalAccessTokens)
      .innerJoin(principals, eq(principals.id, personalAccessTokens.principalId))
      .where(eq(personalAccessTokens.tokenHash, sql.placeholder("hash")))
      .prepare("pat_by_hash");
    this.touch = db.update(personalAccessTokens).set({ lastUsedAt: sql`${sql.placeholder("now")}` }).where(eq(personalAccessTokens.id, sql.placeholder("id"))).prepare("pat_touch");
  }

  async create(principalId: string, label: string): Promise<{ info: PatInfo; token: string }> {
    checkLabel(label);
    const now = this.clock.now();
    const token = newSecret("pat");
    const info: PatInfo = { id: newId("tok", now), principalId, label: label.trim(), createdAt: now, lastUsedAt: null, revoked: false };
    await this.db.insert(this.db.t.personalAccessTokens).values({ ...info, tokenHash: sha256Hex(token) });
    return { info, token };
  }

  /** Non-revoked tokens of a principal, newest first. */
  async list(principalId: string): Promise<PatInfo[]> {
    const { personalAccessTokens } = this.db.t;
    const rows = await this.db
      .select()
      .from(personalAccessTokens)
      .where(and(eq(personalAccessTokens.principalId, principalId), eq(personalAccessTokens.revoked, false)))
      .orderBy(desc(personalAccessTokens.createdAt), desc(personalAccessTokens.id));
    return rows.map(toInfo);
  }

  async get(id: string): Promise<PatInfo | undefined> {
    const { personalAccessTokens } = this.db.t;
    const row = await first(this.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, id)));
    return row ? toInfo(row) : undefined;
  }

  async revoke(id: string): Promise<PatInfo> {
    const { personalAccessTokens } = this.db.t;
    const row = await this.get(id);
    if (!row) throw new PatError(`no personal access token with id ${JSON.stringify(id)}`, "not_found");
    await this.db.update(personalAccessTokens).set({ revoked: true, revokedAt: this.clock.now() }).where(eq(personalAccessTokens.id, id));
    return { ...row, revoked: true };
  }

  async revokeAll(principalId: string, db: GatewayDb = this.db): Promise<number> {
    const { personalAccessTokens } = db.t;
    return (
      await db
        .update(personalAccessTokens)
        .set({ revoked: true, revokedAt: this.clock.now() })
        .where(and(eq(personalAccessTokens.principalId, principalId), eq(personalAccessTokens.revoked, false)))
        .returning({ id: personalAccessTokens.id })
    ).length;
  }

  /** The live token matching a presented secret; marks it used. */
  async use(token: string): Promise<LivePat | undefined> {
    const hash = tokenHash(token);
    let hit = this.cache.get(hash);
    const since = this.cache.since;
    if (hit === undefined) {
      const found = (await this.byHash.execute({ hash }))[0];
      hit = found && !found.pat.revoked ? { ...toInfo(found.pat), username: found.username } : null;
      this.cache.set(hash, hit, since);
    }
    if (hit === null) return undefined;
    const now = this.clock.now();
    // Coarse last-used updates (once a minute) keep hot paths from writing on every request.
    if (hit.lastUsedAt === null || now - hit.lastUsedAt > 60_000) {
      await this.touch.execute({ now, id: hit.id });
      hit = { ...hit, lastUsedAt: now };
      this.cache.set(hash, hit, since);
    }
    return hit;
  }
}

function toInfo(r: typeof personalAccessTokens.$inferSelect): PatInfo {
  return { id: r.id, principalId: r.principalId, label: r.label, createdAt: r.createdAt, lastUsedAt: r.lastUsedAt, revoked: r.revoked };
}
