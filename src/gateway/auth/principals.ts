// Principals and their credential bindings (password, PAM), read and written in the gateway database.
import { eq, or } from "drizzle-orm";
import type { Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/open.ts";
import { pamBindings, passwordCredentials, principals } from "../db/schema.ts";
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

  create(username: string, displayName?: string, kind: Principal["kind"] = "human"): Principal {
    checkUsername(username);
    if (displayName !== undefined) checkDisplayName(displayName);
    if (this.db.select({ id: principals.id }).from(principals).where(eq(principals.username, username)).get()) {
      throw new PrincipalError(`a principal named ${JSON.stringify(username)} already exists`, "conflict");
    }
    const now = this.clock.now();
    const row = { id: newId("prn", now), username, displayName: displayName || null, kind, createdAt: now, updatedAt: now };
    this.db.insert(principals).values(row).run();
    return row;
  }

  list(): PrincipalDetail[] {
    return this.db.select().from(principals).orderBy(principals.createdAt).all().map((p) => this.detail(p));
  }

  /** By id (`prn_...`) or username. */
  find(idOrUsername: string): PrincipalDetail | undefined {
    const p = this.db.select().from(principals).where(or(eq(principals.id, idOrUsername), eq(principals.username, idOrUsername))).get();
    return p ? this.detail(p) : undefined;
  }

  get(idOrUsername: string): PrincipalDetail {
    const p = this.find(idOrUsername);
    if (!p) throw new PrincipalError(`no principal with id or username ${JSON.stringify(idOrUsername)}`, "not_found");
    return p;
  }

  /** The principal bound to a PAM system user (for logins typed with the system username). */
  findByPamUser(systemUser: string): PrincipalDetail | undefined {
    const b = this.db.select().from(pamBindings).where(eq(pamBindings.systemUser, systemUser)).get();
    return b ? this.find(b.principalId) : undefined;
  }

  rename(id: string, displayName: string): PrincipalDetail {
    checkDisplayName(displayName);
    const p = this.get(id);
    this.db.update(principals).set({ displayName: displayName || null, updatedAt: this.clock.now() }).where(eq(principals.id, p.id)).run();
    return this.get(p.id);
  }

  /** Deletes the principal; credentials, tokens, sessions and grants cascade. */
  delete(id: string): PrincipalDetail {
    const p = this.get(id);
    this.db.delete(principals).where(eq(principals.id, p.id)).run();
    return p;
  }

  passwordHash(principalId: string): string | undefined {
    return this.db.select({ hash: passwordCredentials.hash }).from(passwordCredentials).where(eq(passwordCredentials.principalId, principalId)).get()?.hash;
  }

  setPasswordHash(principalId: string, hash: string): void {
    const now = this.clock.now();
    this.db
      .insert(passwordCredentials)
      .values({ principalId, hash, updatedAt: now })
      .onConflictDoUpdate({ target: passwordCredentials.principalId, set: { hash, updatedAt: now } })
      .run();
  }

  removePassword(principalId: string): boolean {
    return this.db.delete(passwordCredentials).where(eq(passwordCredentials.principalId, principalId)).returning({ id: passwordCredentials.principalId }).all().length > 0;
  }

  setPam(principalId: string, service: string, systemUser: string): void {
    if (!/^[A-Za-z0-9._-]+$/.test(service)) throw new PrincipalError(`invalid PAM service ${JSON.stringify(service)}: expected a file name under /etc/pam.d`, "invalid");
    if (!/^[a-z_][a-z0-9._-]*\$?$/i.test(systemUser) || systemUser.length > 64) throw new PrincipalError(`invalid system user ${JSON.stringify(systemUser)}`, "invalid");
    const other = this.findByPamUser(systemUser);
    if (other && other.id !== principalId) throw new PrincipalError(`system user ${systemUser} is already bound to principal ${other.username}`, "conflict");
    const now = this.clock.now();
    this.db
      .insert(pamBindings)
      .values({ principalId, service, systemUser, createdAt: now })
      .onConflictDoUpdate({ target: pamBindings.principalId, set: { service, systemUser, createdAt: now } })
      .run();
  }

  removePam(principalId: string): boolean {
    return this.db.delete(pamBindings).where(eq(pamBindings.principalId, principalId)).returning({ id: pamBindings.principalId }).all().length > 0;
  }

  private detail(p: typeof principals.$inferSelect): PrincipalDetail {
    const pam = this.db.select().from(pamBindings).where(eq(pamBindings.principalId, p.id)).get();
    return {
      ...p,
      hasPassword: this.passwordHash(p.id) !== undefined,
      pam: pam ? { service: pam.service, systemUser: pam.systemUser } : null,
    };
  }
}
