// What a hook's exit code and output mean, as Claude Code defines it: exit 0 goes on (its stdout may be
// JSON with a decision or added context), exit 2 blocks (stderr says why), any other code is an error the
// person is shown and nothing is blocked. A time limit or a failed start is such an error.
import type { HookEventName } from "../../config/schema/hooks.ts";
import type { HookOutcome } from "../../protocol/hook.ts";
import type { CommandRun } from "./run-command.ts";

export interface HookVerdict {
  outcome: HookOutcome;
  /** PreToolUse: the hook's permission decision (`hookSpecificOutput.permissionDecision`, or the older `decision: approve|block`). */
  decision?: "allow" | "deny" | "ask";
  /** Why it blocked or decided: for the model (or, for a blocked prompt, the person). */
  reason?: string;
  /** Text added to what the model reads (`additionalContext`; plain stdout of UserPromptSubmit and SessionStart). */
  context?: string;
  /** Text for the person only (`systemMessage`, the stderr of an error). */
  userMessage?: string;
}

/** Events whose plain (non-JSON) stdout on exit 0 is context for the model, as in Claude Code. */
const STDOUT_IS_CONTEXT = new Set<HookEventName>(["UserPromptSubmit", "SessionStart"]);

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);

export function hookVerdict(event: HookEventName, run: CommandRun, timeoutSecs: number): HookVerdict {
  if (run.startError) return { outcome: "error", userMessage: `could not start: ${run.startError}` };
  if (run.timedOut) return { outcome: "timeout", userMessage: `killed after its time limit of ${timeoutSecs} s` };
  if (run.exitCode === 2) return { outcome: "blocked", reason: run.stderr.trim() || "blocked by a hook (it gave no reason on stderr)" };
  if (run.exitCode !== 0) {
    const stderr = run.stderr.trim();
    return { outcome: "error", userMessage: `exited with ${run.exitCode === null ? "a signal" : `code ${run.exitCode}`}${stderr ? `: ${stderr}` : ""}` };
  }
  const out = run.stdout.trim();
  const json = parseObject(out);
  if (!json) return out && STDOUT_IS_CONTEXT.has(event) ? { outcome: "allowed", context: out } : { outcome: "allowed" };
  const verdict: HookVerdict = { outcome: "allowed" };
  const specific = json.hookSpecificOutput && typeof json.hookSpecificOutput === "object" ? (json.hookSpecificOutput as Record<string, unknown>) : {};
  const context = str(specific.additionalContext);
  if (context) verdict.context = context;
  const systemMessage = str(json.systemMessage);
  if (systemMessage) verdict.userMessage = systemMessage;
  if (event === "PreToolUse") {
    const decision = specific.permissionDecision ?? (json.decision === "approve" ? "allow" : json.decision === "block" ? "deny" : undefined);
    if (decision === "allow" || decision === "deny" || decision === "ask") {
      verdict.decision = decision;
      verdict.outcome = decision === "deny" ? "blocked" : decision === "ask" ? "ask" : "allowed";
      const reason = str(specific.permissionDecisionReason) ?? str(json.reason);
      if (reason) verdict.reason = reason;
    }
  } else if (json.decision === "block") {
    verdict.outcome = "blocked";
    verdict.reason = str(json.reason) ?? "blocked by a hook (it gave no reason)";
  }
  return verdict;
}

function parseObject(text: string): Record<string, unknown> | null {
  if (!text.startsWith("{")) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
