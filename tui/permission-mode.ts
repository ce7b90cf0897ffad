// Shift+Tab's cycle of the session's permission mode: ask every time → accept edits → sandboxed
// autonomy (only while a sandbox runs) → plan (the read-only facet) → ask every time. Each step is the
// session commands that get there, so the view does what `/autonomy` and `/facet` would.

export interface ModeStep {
  /** Session commands to run in order: [name, args]. */
  commands: [string, string[]][];
  /** What the mode is called once there. */
  label: string;
}

export const PLAN_FACET = "plan";
const WORK_FACET = "execute";

export function nextPermissionMode(facet: string | null, autonomy: string | null, sandbox: string | null): ModeStep {
  const sandboxed = sandbox !== null && sandbox !== "off";
  if (facet === PLAN_FACET) return { commands: [["facet", [WORK_FACET]], ["autonomy", ["ask"]]], label: "ask every time" };
  if (!autonomy || autonomy === "ask") return { commands: [["autonomy", ["accept_edits"]]], label: "accept edits" };
  if (autonomy === "accept_edits" && sandboxed) return { commands: [["autonomy", ["sandboxed"]]], label: "sandboxed autonomy" };
  return { commands: [["facet", [PLAN_FACET]]], label: "plan" };
}
