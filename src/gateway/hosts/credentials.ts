// Host credentials (`hst_` + 256 random bits, shown once; only the SHA-256 is stored): one host's right to
// join the gateway (docs/gateway-hosts.md, Host credentials). A credential is scoped to one host name, the
// only name a connection opened with it may claim; it is accepted on the connect route only (auth/bearer.ts).
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/open.ts";
import type { hostCredentials } from "../db/schema.ts";
import { first } from "../db/handle.ts";
import { newId, newSecret, sha256Hex } from "../../util/ids.ts";
import { tokenHash, VerifiedCache, type DbStamp } from "../auth/verified-cache.ts";
import { hostName as hostNameProblem } from "../config/spec.ts";

export interface HostCredentialInfo {
  id: string;
  hostName: string;
  label: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export class HostCredentialError extends Error {
  constructor(message: string, readonly kind: "invalid" | "not_found" | "revoked") {
    super(message);
    this.name = "HostCredentialError";
  }
}

/** The host name a credential may be issued for: the rule of the gateway config's `host_name`. */
export function checkHostName(name: string): void {
  const problem = hostNameProblem(name);
  if (problem) throw new HostCredentialError(`--host ${JSON.stringify(name)}: ${problem}`, "invalid");
}

function checkLabel(label: string): void {
  if (label.length > 100) throw new HostCredentialError("a host token label is limited to 100 characters", "invalid");
  if (/[\u0000-\u001f\u007f-\u009f]/.test(label)) throw new HostCredentialError("a host token label must not contain control characters", "invalid");
}

export class HostCredentialStore {
  private readonly byHash;
  /** Verified tokens (and misses) by hash, emptied whenever the database changes (auth/verified-cache.ts). */
  private readonly cache: VerifiedCache<HostCredentialInfo>;

  constructor(private readonly db: GatewayDb, private readonly clock: Clock, stamp: DbStamp) {
    this.cache = new VerifiedCache(stamp);
    const { hostCredentials } = db.t;
    this.byHash = db
      .select()
      .from(hostCredentials)
      .where(and(eq(hostCredentials.tokenHash, sql.placeholder("hash")), isNull(hostCredentials.revokedAt)))
      .prepare("hst_by_hash");
  }

  async create(hostName: string, label = ""): Promise<{ info: HostCredentialInfo; token: string }> {
    checkHostName(hostName);
    checkLabel(label);
    const now = this.clock.now();
    const token = newSecret("hst");
    const info: HostCredentialInfo = { id: newId("hcr", now), hostName, label: label.trim(), createdAt: now, lastUsedAt: null, revokedAt: null };
    await this.db.insert(this.db.t.hostCredentials).values({ ...info, tokenHash: sha256Hex(token) });
    return { info, token };
  }

  /** Every credential, revoked ones included (an administrator sees what was issued), newest first. */
  async list(): Promise<HostCredentialInfo[]> {
    const { hostCredentials } = this.db.t;
    return (await this.db.select().from(hostCredentials).orderBy(desc(hostCredentials.createdAt), desc(hostCredentials.id))).map(toInfo);
  }

  async get(id: string): Promise<HostCredentialInfo | undefined> {
    const { hostCredentials } = this.db.t;
    const row = await first(this.db.select().from(hostCredentials).where(eq(hostCredentials.id, id)));
    return row ? toInfo(row) : undefined;
  }

  async revoke(id: string): Promise<HostCredentialInfo> {
    const { hostCredentials } = this.db.t;
    const row = await this.get(id);
    if (!row) throw new HostCredentialError(`no host credential with id ${JSON.stringify(id)}`, "not_found");
    if (row.revokedAt !== null) throw new HostCredentialError(`host credential ${id} is already revoked`, "revoked");
    const now = this.clock.now();
    await this.db.update(hostCredentials).set({ revokedAt: now }).where(and(eq(hostCredentials.id, id), isNull(hostCredentials.revokedAt)));
    return { ...row, revokedAt: now };
  }

  /** Whether a credential is still live (open connections are closed when it is not). */
  async live(id: string): Promise<boolean> {
    const { hostCredentials } = this.db.t;
    return (await first(this.db.select({ id: hostCredentials.id }).from(hostCredentials).where(and(eq(hostCredentials.id, id), isNull(hostCredentials.revokedAt))))) !== undefined;
  }

  /** The live credential matching a presented secret; marks it used. */
  async use(token: string): Promise<HostCredentialInfo | undefined> {
    const hash = tokenHash(token);
    let hit = this.cache.get(hash);
    const since = this.cache.since;
    if (hit === undefined) {
      const row = (await this.byHash.execute({ hash }))[0];
      hit = row ? toInfo(row) : null;
      this.cache.set(hash, hit, since);
    }
    if (hit === null) return undefined;
    const now = this.clock.now();
    // Coarse last-used updates, as for PATs: a host reconnecting in a loop does not write on every attempt.
    if (hit.lastUsedAt === null || now - hit.lastUsedAt > 60_000) {
      await this.db.update(this.db.t.hostCredentials).set({ lastUsedAt: now }).where(eq(this.db.t.hostCredentials.id, hit.id));
      hit = { ...hit, lastUsedAt: now };
      this.cache.set(hash, hit, since);
    }
    return hit;
  }
}

function toInfo(r: typeof hostCredentials.$inferSelect): HostCredentialInfo {
  return { id: r.id, hostName: r.hostName, label: r.label, createdAt: r.createdAt, lastUsedAt: r.lastUsedAt, revokedAt: r.revokedAt };
}
