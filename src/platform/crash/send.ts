// Sending a report: only when `data.automatic_crash_reporting` is true AND `data.crash_report_endpoint`
// names where (off unless both are configured). One POST of the same redacted JSON that was written
// locally, bounded in time; a failure is reported to the user, never retried in the background.
import type { Static } from "@sinclair/typebox";
import type { DataConfig } from "../../config/schema/session.ts";
import type { CrashReport } from "./report.ts";

export type DataBlock = Static<typeof DataConfig>;

export const SEND_TIMEOUT_MS = 3000;

export type SendResult = { sent: false; reason: "off" } | { sent: true; origin: string } | { sent: false; reason: "failed"; origin: string; detail: string };

export async function sendCrashReport(report: CrashReport, data: DataBlock | null | undefined, fetchImpl: typeof fetch = fetch): Promise<SendResult> {
  const endpoint = data?.automatic_crash_reporting === true ? data.crash_report_endpoint : null;
  if (!endpoint) return { sent: false, reason: "off" };
  const origin = new URL(endpoint).origin;
  try {
    const response = await fetchImpl(endpoint, {
      method: "POST",
      headers: { ...(data?.crash_report_headers ?? {}), "Content-Type": "application/json" },
      body: JSON.stringify(report),
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      redirect: "error",
    });
    await response.body?.cancel();
    if (!response.ok) return { sent: false, reason: "failed", origin, detail: `HTTP ${response.status}` };
    return { sent: true, origin };
  } catch (error) {
    return { sent: false, reason: "failed", origin, detail: (error as Error).name === "TimeoutError" ? "timed out" : "not reachable" };
  }
}
