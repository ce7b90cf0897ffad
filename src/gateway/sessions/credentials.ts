// Daemon service credentials (`dsc_<generation>.<secret>`): one per daemon generation, stored as an HMAC
// verifier with the pepper (auth/bearer.ts verifies it). pending -> active on the credential's first
// authenticated use (the daemon checks in at startup); -> invalidated with a cause when the daemon stops,
// exits, fails or is reconciled away. Only the metadata ever leaves this module.
import { randomBytes } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { isoAt, type Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/open.ts";
import { serviceCredentials, sessions } from "../db/schema.ts";
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
  issue(sessionId: string, capabilities: unknown): IssuedCredential {
    const now = this.clock.now();
    // No '.' in the id: the token's first '.' separates generation from secret.
    const generationId = newId("gen", now);
    const token = `dsc_${generationId}.${randomBytes(32).toString("base64url")}`;
    this.db.transaction((tx) => {
      tx.insert(serviceCredentials).values({ generationId, sessionId, state: "pending", verifier: serviceCredentialVerifier(this.pepper, token), capabilities, createdAt: now }).run();
      tx.update(sessions).set({ currentGenerationId: generationId }).where(eq(sessions.id, sessionId)).run();
    });
    return { generationId, token };
  }

  /** Invalidates every live (pending or active) generation of the session, recording why. */
  invalidate(sessionId: string, cause: InvalidationCause): void {
    const now = this.clock.now();
    this.db
      .update(serviceCredentials)
      .set({ state: "invalidated", invalidatedAt: now, invalidationCause: cause })
      .where(and(eq(serviceCredentials.sessionId, sessionId), inArray(serviceCredentials.state, ["pending", "active"])))
      .run();
  }

  /** The record's `service_credentials`: metadata only, oldest generation first. */
  list(sessionId: string): ServiceCredentialView[] {
    const rows = this.db
      .select({
        generationId: serviceCredentials.generationId,
        state: serviceCredentials.state,
        createdAt: serviceCredentials.createdAt,
        activatedAt: serviceCredentials.activatedAt,
        invalidatedAt: serviceCredentials.invalidatedAt,
        lastUsedAt: serviceCredentials.lastUsedAt,
        invalidationCause: serviceCredentials.invalidationCause,
      })
      .from(serviceCredentials)
      .where(eq(serviceCredentials.sessionId, sessionId))
      .orderBy(serviceCredentials.createdAt, sql`rowid`)
      .all();
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
