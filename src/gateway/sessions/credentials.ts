// Daemon service credentials (`dsc_<generation>.<secret>`): one per daemon generation, stored as an HMAC
// verifier with the pepper (auth/bearer.ts verifies it). pending -> active on the credential's first
// authenticated use (the daemon checks in at startup); -> invalidated with a cause when the daemon stops,
// exits, fails or is reconciled away. Only the metadata ever leaves this module.
import { randomBytes } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { isoAt, type Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/open.ts";
import { serviceCredentialVerifier } from "../auth/bearer.ts";
import { newId } from "../../util/ids.ts";

export type InvalidationCause = "session_stopped" | "watcher_daemon_exit" | "reconciliation" | "health_check_failed" | "spawn_failed" | "session_deleted";

export interface ServiceCredentialView {
  generation_id: string;
  state: "pending" | "active" | "invalidated";
  created_at: string;
  activated_at: string | null;
  invalidated_at: string | null;
  last_used_at: string | null;
  invalidation_cause: string | null;
}

export interface IssuedCredential {
  generationId: string;
  token: string;
}

export class ServiceCredentials {
  constructor(
    private readonly db: GatewayDb,
    private readonly pepper: Uint8Array,
    private readonly clock: Clock,
  ) {}

  /**
   * A new generation for the session's next daemon; it becomes the session's current generation, so every
   * earlier generation is rejected from now on (bearer.ts compares with `current_generation_id`).
   */
  async issue(sessionId: string, capabilities: unknown): Promise<IssuedCredential> {
    const now = this.clock.now();
    // No '.' in the id: the token's first '.' separates generation from secret.
    const generationId = newId("gen", now);
    const token = `dsc_${generationId}.${randomBytes(32).toString("base64url")}`;
    await this.db.tx(async (tx) => {
      await tx.insert(this.db.t.serviceCredentials).values({ generationId, sessionId, state: "pending", verifier: serviceCredentialVerifier(this.pepper, token), capabilities, createdAt: now });
      await tx.update(this.db.t.sessions).set({ currentGenerationId: generationId }).where(eq(this.db.t.sessions.id, sessionId));
    });
    return { generationId, token };
  }

  /** Invalidates every live (pending or active) generation of the session, recording why. */
  async invalidate(sessionId: string, cause: InvalidationCause): Promise<void> {
    const now = this.clock.now();
    await this.db
      .update(this.db.t.serviceCredentials)
      .set({ state: "invalidated", invalidatedAt: now, invalidationCause: cause })
      .where(and(eq(this.db.t.serviceCredentials.sessionId, sessionId), inArray(this.db.t.serviceCredentials.state, ["pending", "active"])))
      ;
  }

  /** The record's `service_credentials`: metadata only, oldest generation first. */
  async list(sessionId: string): Promise<ServiceCredentialView[]> {
    const rows = (await this.db
      .select({
        generationId: this.db.t.serviceCredentials.generationId,
        state: this.db.t.serviceCredentials.state,
        createdAt: this.db.t.serviceCredentials.createdAt,
        activatedAt: this.db.t.serviceCredentials.activatedAt,
        invalidatedAt: this.db.t.serviceCredentials.invalidatedAt,
        lastUsedAt: this.db.t.serviceCredentials.lastUsedAt,
        invalidationCause: this.db.t.serviceCredentials.invalidationCause,
      })
      .from(this.db.t.serviceCredentials)
      .where(eq(this.db.t.serviceCredentials.sessionId, sessionId))
      // Oldest first. Generation ids sort by their millisecond; within one millisecond (a test's fixed clock)
      // the current generation is still the last one (PostgreSQL has no insertion order like SQLite's rowid).
      .orderBy(
        this.db.t.serviceCredentials.createdAt,
        sql`case when ${this.db.t.serviceCredentials.generationId} = (select ${this.db.t.sessions.currentGenerationId} from ${this.db.t.sessions} where ${this.db.t.sessions.id} = ${sessionId}) then 1 else 0 end`,
        this.db.t.serviceCredentials.generationId,
      ));
    return rows.map((r) => ({
      generation_id: r.generationId,
      state: r.state,
      created_at: isoAt(r.createdAt),
      activated_at: r.activatedAt === null ? null : isoAt(r.activatedAt),
      invalidated_at: r.invalidatedAt === null ? null : isoAt(r.invalidatedAt),
      last_used_at: r.lastUsedAt === null ? null : isoAt(r.lastUsedAt),
      invalidation_cause: r.invalidationCause,
    }));
  }
}
