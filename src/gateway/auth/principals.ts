// Principals and their credential bindings (password, PAM), read and written in the gateway database.
import { eq, or } from "drizzle-orm";
import type { Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/open.ts";
import type { principals } from "../db/schema.ts";
import { first } from "../db/handle.ts";
import { newId } from "../../util/ids.ts";

export interface Principal {
  id: string;
  username: string;
  displayName: string | null;
  kind: "human" | "machine_client";
  createdAt: number;
  updatedAt: number;
}

export interface PrincipalDetail extends Principal {
  hasPassword: boolean;
  pam: { service: string; systemUser: string } | null;
}

export class PrincipalError extends Error {
  constructor(message: string, readonly kind: "invalid" | "not_found" | "conflict") {
    super(message);
    this.name = "PrincipalError";
  }
}

const USERNAME = /^[a-z_][a-z0-9._-]{0,63}$/;

export function checkUsername(username: string): void {
  if (!USERNAME.test(username)) {
    throw new PrincipalError(`invalid username ${JSON.stringify(username)}: use 1-64 lowercase letters, digits, '.', '_' or '-', starting with a letter or '_'`, "invalid");
  }
}

export function checkDisplayName(name: string): void {
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) throw new PrincipalError("the display name must not contain control characters", "invalid");
  if (name.length > 200) throw new PrincipalError("the display name is limited to 200 characters", "invalid");
}

export class PrincipalStore {
  constructor(private readonly db: GatewayDb, private readonly clock: Clock) {}

  async create(username: string, displayName?: string, kind: Principal["kind"] = "human"): Promise<Principal> {
    checkUsername(username);
    if (displayName !== undefined) checkDisplayName(displayName);
    const { principals } = this.db.t;
    if (await first(this.db.select({ id: principals.id }).from(principals).where(eq(principals.username, username)))) {
      throw new PrincipalError(`a principal named ${JSON.stringify(username)} already exists`, "conflict");
    }
    const now = this.clock.now();
    const row = { id: newId("prn", now), username, displayName: displayName || null, kind, createdAt: now, updatedAt: now };
    await this.db.insert(principals).values(row);
    return row;
  }

  async list(): Promise<PrincipalDetail[]> {
    const { principals } = this.db.t;
    // The id breaks ties in one millisecond the same way on both dialects (ids sort by creation time).
    const rows = await this.db.select().from(principals).orderBy(principals.createdAt, principals.id);
    return Promise.all(rows.map((p) => this.detail(p)));
  }

  /** By id (`prn_...`) or username. */
  async find(idOrUsername: string): Promise<PrincipalDetail | undefined> {
    const { principals } = this.db.t;
    const p = await first(this.db.select().from(principals).where(or(eq(principals.id, idOrUsername), eq(principals.username, idOrUsername))));
    return p ? this.detail(p) : undefined;
  }

  async get(idOrUsername: string): Promise<PrincipalDetail> {
    const p = await this.find(idOrUsername);
    if (!p) throw new PrincipalError(`no principal with id or username ${JSON.stringify(idOrUsername)}`, "not_found");
    return p;
  }

  /** The principal bound to a PAM system user (for logins typed with the system username). */
  async findByPamUser(systemUser: string): Promise<PrincipalDetail | undefined> {
    const { pamBindings } = this.db.t;
    const b = await first(this.db.select().from(pamBindings).where(eq(pamBindings.systemUser, systemUser)));
    return b ? this.find(b.principalId) : undefined;
  }

  async rename(id: string, displayName: string): Promise<PrincipalDetail> {
    checkDisplayName(displayName);
    const { principals } = this.db.t;
    const p = await this.get(id);
    await this.db.update(principals).set({ displayName: displayName || null, updatedAt: this.clock.now() }).where(eq(principals.id, p.id));
    return this.get(p.id);
  }

  /** Deletes the principal; credentials, tokens, sessions and grants cascade. */
  async delete(id: string): Promise<PrincipalDetail> {
    const { principals } = this.db.t;
    const p = await this.get(id);
    await this.db.delete(principals).where(eq(principals.id, p.id));
    return p;
  }

  async passwordHash(principalId: string): Promise<string | undefined> {
    const { passwordCredentials } = this.db.t;
    return (await first(this.db.select({ hash: passwordCredentials.hash }).from(passwordCredentials).where(eq(passwordCredentials.principalId, principalId))))?.hash;
  }

  async setPasswordHash(principalId: string, hash: string, db: GatewayDb = this.db): Promise<void> {
    const { passwordCredentials } = db.t;
    const now = this.clock.now();
    await db
      .insert(passwordCredentials)
      .values({ principalId, hash, updatedAt: now })
      .onConflictDoUpdate({ target: passwordCredentials.principalId, set: { hash, updatedAt: now } });
  }

  async removePassword(principalId: string, db: GatewayDb = this.db): Promise<boolean> {
    const { passwordCredentials } = db.t;
    return (await db.delete(passwordCredentials).where(eq(passwordCredentials.principalId, principalId)).returning({ id: passwordCredentials.principalId })).length > 0;
  }

  async setPam(principalId: string, service: string, systemUser: string): Promise<void> {
    if (!/^[A-Za-z0-9._-]+$/.test(service)) throw new PrincipalError(`invalid PAM service ${JSON.stringify(service)}: expected a file name under /etc/pam.d`, "invalid");
    if (!/^[a-z_][a-z0-9._-]*\$?$/i.test(systemUser) || systemUser.length > 64) throw new PrincipalError(`invalid system user ${JSON.stringify(systemUser)}`, "invalid");
    const other = await this.findByPamUser(systemUser);
    if (other && other.id !== principalId) throw new PrincipalError(`system user ${systemUser} is already bound to principal ${other.username}`, "conflict");
    const { pamBindings } = this.db.t;
    const now = this.clock.now();
    await this.db
      .insert(pamBindings)
      .values({ principalId, service, systemUser, createdAt: now })
      .onConflictDoUpdate({ target: pamBindings.principalId, set: { service, systemUser, createdAt: now } });
  }

  async removePam(principalId: string): Promise<boolean> {
    const { pamBindings } = this.db.t;
    return (await this.db.delete(pamBindings).where(eq(pamBindings.principalId, principalId)).returning({ id: pamBindings.principalId })).length > 0;
  }

  private async detail(p: typeof principals.$inferSelect): Promise<PrincipalDetail> {
    const { pamBindings } = this.db.t;
    const pam = await first(this.db.select().from(pamBindings).where(eq(pamBindings.principalId, p.id)));
    return {
      ...p,
      hasPassword: (await this.passwordHash(p.id)) !== undefined,
      pam: pam ? { service: pam.service, systemUser: pam.systemUser } : null,
    };
  }
}
