// The audit log: authentication outcomes, token operations and administrative actions.
// Callers pass identifiers only; free text is redacted so a secret can never be stored here.
import { and, desc, eq, gte, sql } from "drizzle-orm";
import { redactText } from "../../util/redact.ts";
import type { Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/open.ts";

export type AuditOutcome = "success" | "failure" | "denied" | "error";

export interface AuditInput {
  action: string;
  outcome: AuditOutcome;
  principalId?: string | null;
  sourceIp?: string | null;
  target?: string | null;
  detail?: string | null;
}

export interface AuditEvent {
  id: number;
  at: string;
  principal_id: string | null;
  source_ip: string | null;
  action: string;
  target: string | null;
  outcome: AuditOutcome;
  detail: string | null;
}

export class AuditLog {
  private readonly insert;

  constructor(private readonly db: GatewayDb, private readonly clock: Clock) {
    // Every login, token operation and admin action writes one: prepared once (drizzle builds no SQL per event).
    this.insert = db
      .insert(db.t.auditEvents)
      .values({
        at: sql.placeholder("at"),
        action: sql.placeholder("action"),
        outcome: sql.placeholder("outcome"),
        principalId: sql.placeholder("principalId"),
        sourceIp: sql.placeholder("sourceIp"),
        target: sql.placeholder("target"),
        detail: sql.placeholder("detail"),
      })
      .prepare("audit_insert");
  }

  /** `db`: a transaction's handle, when the event belongs to it. */
  async record(event: AuditInput, db: GatewayDb = this.db): Promise<void> {
    const row = {
      at: this.clock.now(),
      action: event.action,
      outcome: event.outcome,
      principalId: event.principalId ?? null,
      sourceIp: event.sourceIp ?? null,
      target: event.target == null ? null : redactText(event.target),
      detail: event.detail == null ? null : redactText(event.detail),
    };
    if (db === this.db) await this.insert.execute(row);
    else await db.insert(db.t.auditEvents).values(row);
  }

  /** Newest first. */
  async list(filter: { principalId?: string; sinceMs?: number; limit?: number } = {}): Promise<AuditEvent[]> {
    const { auditEvents } = this.db.t;
    const conditions = [];
    if (filter.principalId) conditions.push(eq(auditEvents.principalId, filter.principalId));
    if (filter.sinceMs !== undefined) conditions.push(gte(auditEvents.at, filter.sinceMs));
    const rows = await this.db
      .select()
      .from(auditEvents)
      .where(conditions.length ? and(...conditions) : undefined)
      .orderBy(desc(auditEvents.at), desc(auditEvents.id))
      .limit(filter.limit ?? 100);
    return rows.map((r) => ({
        id: r.id,
        at: new Date(r.at).toISOString(),
        principal_id: r.principalId,
        source_ip: r.sourceIp,
        action: r.action,
        target: r.target,
        outcome: r.outcome,
        detail: r.detail,
      }));
  }
}
