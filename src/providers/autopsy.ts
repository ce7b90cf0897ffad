// logging.provider_autopsy: one redacted JSON report per failed provider call, in the session
// directory. It holds status, codes, timing and the retry history; never request or response
// contents, never keys.
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { redactValue } from "../util/redact.ts";
import type { ProviderError } from "./errors.ts";
import type { AttemptRecord } from "./retry.ts";

export const AUTOPSY_DIR = "provider-autopsy";

export interface AutopsyContext {
  provider: string;
  protocol: string;
  model: string;
  /** Endpoint origin only (no path, no query). */
  endpoint_origin: string | null;
}

export interface AutopsyReport {
  version: 1;
  provider: string;
  protocol: string;
  model: string;
  endpoint_origin: string | null;
  started_at: string;
  failed_at: string;
  duration_ms: number;
  error: { kind: string; status: number | null; code: string; message: string; request_id: string | null };
  partial_content_kept: boolean;
  attempts: (Omit<AttemptRecord, "started_at" | "ended_at"> & { started_at: string; duration_ms: number })[];
}

export function buildAutopsyReport(ctx: AutopsyContext, error: ProviderError, history: AttemptRecord[], partialKept: boolean): AutopsyReport {
  const first = history[0];
  const last = history[history.length - 1];
  const start = first?.started_at ?? 0;
  const end = last?.ended_at ?? start;
  return {
    version: 1,
    ...ctx,
    started_at: new Date(start).toISOString(),
    failed_at: new Date(end).toISOString(),
    duration_ms: end - start,
    error: { kind: error.kind, status: error.status, code: error.code, message: error.message, request_id: error.requestId },
    partial_content_kept: partialKept,
    attempts: history.map((a) => ({
      attempt: a.attempt,
      started_at: new Date(a.started_at).toISOString(),
      duration_ms: a.ended_at - a.started_at,
      kind: a.kind,
      status: a.status,
      code: a.code,
      request_id: a.request_id,
      delay_ms: a.delay_ms,
    })),
  };
}

/** Writes the report (0600) under `<sessionDir>/provider-autopsy/`; returns its path. */
export function writeAutopsyReport(sessionDir: string, report: AutopsyReport, secrets: readonly string[]): string {
  const stamp = report.failed_at.replace(/[:.]/g, "-");
  const safeName = report.provider.replace(/[^A-Za-z0-9_-]/g, "_");
  const path = join(sessionDir, AUTOPSY_DIR, `${stamp}-${safeName}-${randomBytes(3).toString("hex")}.json`);
  const clean = redactValue(report, secrets);
  writeFileAtomic(path, `${JSON.stringify(clean, null, 2)}\n`, 0o600);
  return path;
}
