// The session's hooks: the `hooks` blocks of the global config and, once trusted, the project's (both
// run: a project cannot replace the user's own guards), grouped by event. A run starts every matching
// command at once (as Claude Code does), records each as a `hook_ran` event in the root session's journal,
// tells the person about errors, and returns the verdicts for the engine to act on.
import { resolve } from "node:path";
import { DEFAULT_HOOK_TIMEOUT_SECS, HOOK_EVENTS, type HookEventName } from "../../config/schema/hooks.ts";
import type { EngineEvent } from "../events.ts";
import type { HookRun } from "../../protocol/hook.ts";
import type { Clock } from "../../util/clock.ts";
import { compileMatcher, type ToolMatcher } from "./matcher.ts";
import { hookVerdict, type HookVerdict } from "./output.ts";
import { runHookCommand } from "./run-command.ts";

/** What each hook_ran record and notice keeps of a hook's message. */
const MAX_MESSAGE_CHARS = 4000;

/** Events a matcher applies to (the tool, the notification type, SessionStart's source, PreCompact's trigger); the others run every hook. */
const MATCHED_EVENTS = new Set<HookEventName>(["PreToolUse", "PostToolUse", "Notification", "SessionStart", "PreCompact"]);

export interface HookCommandEntry {
  event: HookEventName;
  origin: "global" | "project";
  matcher: ToolMatcher;
  command: string;
  timeoutSecs: number;
}

export interface HookSource {
  origin: "global" | "project";
  /** The `hooks` block as written (validated by the config schema). */
  block: unknown;
}

export interface HooksDeps {
  sessionId: string;
  projectRoot: string;
  /** The session's child environment (secret words filtered out), asked at each run. */
  env: () => Record<string, string>;
  clock: Clock;
  /** The root session's journal. */
  record: (event: EngineEvent) => void;
  /** Secret redaction of what a hook says to the model or the person. */
  scrub: (text: string) => string;
}

/** A hook event's payload beyond the fields every event carries (Claude Code's names). */
export type HookPayload = Record<string, unknown>;

export interface RunOptions {
  turnId: string;
  /** The tool (tool events) or notification type (Notification) the matchers test. */
  target?: string;
  callId?: string;
  signal?: AbortSignal;
}

/** The verdicts of one event's hooks, combined: any block wins; deny over ask over allow. */
export interface CombinedVerdict {
  blocked: boolean;
  decision?: "allow" | "deny" | "ask";
  /** The reasons of the blocking (or deciding) hooks, one per line. */
  reason?: string;
  context?: string;
}

export class Hooks {
  private readonly byEvent = new Map<HookEventName, HookCommandEntry[]>();

  constructor(
    sources: readonly HookSource[],
    private readonly deps: HooksDeps,
    warnings: string[],
    /** `subagent`: Stop hooks run as SubagentStop, prompt and session hooks not at all. */
    readonly role: "root" | "subagent" = "root",
  ) {
    for (const source of sources) {
      if (!source.block || typeof source.block !== "object") continue;
      const block = source.block as Record<string, unknown>;
      for (const event of HOOK_EVENTS) {
        const groups = block[event];
        if (!Array.isArray(groups)) continue;
        groups.forEach((group: { matcher?: string; hooks?: { type?: string; command?: string; timeout?: number }[] }, i) => {
          let matcher: ToolMatcher;
          try {
            matcher = compileMatcher(group.matcher);
          } catch (error) {
            warnings.push(`hooks.${event}[${i}] (${source.origin} config) is skipped: ${(error as Error).message}`);
            return;
          }
          for (const hook of group.hooks ?? []) {
            if (hook.type !== "command" || typeof hook.command !== "string" || hook.command.trim() === "") continue;
            const list = this.byEvent.get(event) ?? [];
            list.push({ event, origin: source.origin, matcher, command: hook.command, timeoutSecs: hook.timeout ?? DEFAULT_HOOK_TIMEOUT_SECS });
            this.byEvent.set(event, list);
          }
        });
      }
    }
  }

  /** The same hooks for a subagent's loop (its Stop is SubagentStop). */
  forSubagent(): Hooks {
    const view = Object.create(Hooks.prototype) as Hooks;
    Object.assign(view, this, { role: "subagent" });
    return view;
  }

  has(event: HookEventName): boolean {
    return (this.byEvent.get(event)?.length ?? 0) > 0;
  }

  /** Runs the event's matching hooks; resolves when all have ended. */
  async run(event: HookEventName, payload: HookPayload, opts: RunOptions): Promise<CombinedVerdict> {
    const entries = (this.byEvent.get(event) ?? []).filter((h) => !MATCHED_EVENTS.has(event) || opts.target === undefined || h.matcher(opts.target));
    if (entries.length === 0) return { blocked: false };
    const input = JSON.stringify({ session_id: this.deps.sessionId, cwd: this.deps.projectRoot, hook_event_name: event, ...payload });
    const env = { ...this.deps.env(), AGENT_PROJECT_DIR: this.deps.projectRoot, CLAUDE_PROJECT_DIR: this.deps.projectRoot, AGENT_SESSION_ID: this.deps.sessionId };
    const verdicts = await Promise.all(entries.map((h) => this.runOne(h, input, env, opts)));
    return combine(verdicts);
  }

  private async runOne(h: HookCommandEntry, input: string, env: Record<string, string>, opts: RunOptions): Promise<HookVerdict> {
    const started = this.deps.clock.now();
    const run = await runHookCommand({ command: h.command, cwd: resolve(this.deps.projectRoot), env, input, timeoutMs: h.timeoutSecs * 1000, ...(opts.signal ? { signal: opts.signal } : {}) });
    const verdict = hookVerdict(h.event, run, h.timeoutSecs);
    const scrub = (t: string) => this.deps.scrub(t).slice(0, MAX_MESSAGE_CHARS);
    if (verdict.reason) verdict.reason = scrub(verdict.reason);
    if (verdict.context) verdict.context = scrub(verdict.context);
    const message = verdict.reason ?? verdict.userMessage;
    const hook: HookRun = {
      event: h.event,
      command: h.command,
      origin: h.origin,
      ...(opts.callId ? { call_id: opts.callId } : {}),
      ...(opts.target !== undefined && (h.event === "PreToolUse" || h.event === "PostToolUse") ? { tool: opts.target } : {}),
      outcome: verdict.outcome,
      exit_code: run.exitCode,
      duration_ms: Math.max(0, this.deps.clock.now() - started),
      ...(message ? { message: scrub(message) } : {}),
    };
    this.deps.record({ type: "hook_ran", turn_id: opts.turnId, hook });
    if (verdict.userMessage) this.deps.record({ type: "notice", level: verdict.outcome === "allowed" ? "info" : "warning", message: `${h.event} hook \`${h.command}\`: ${scrub(verdict.userMessage)}` });
    return verdict;
  }
}

export function combine(verdicts: readonly HookVerdict[]): CombinedVerdict {
  const blocking = verdicts.filter((v) => v.outcome === "blocked");
  const decision = (["deny", "ask", "allow"] as const).find((d) => verdicts.some((v) => v.decision === d));
  const reasons = (blocking.length > 0 ? blocking : verdicts.filter((v) => v.decision === decision)).map((v) => v.reason).filter((r): r is string => !!r);
  const contexts = verdicts.map((v) => v.context).filter((c): c is string => !!c);
  return {
    blocked: blocking.length > 0,
    ...(decision ? { decision } : {}),
    ...(reasons.length ? { reason: reasons.join("\n") } : {}),
    ...(contexts.length ? { context: contexts.join("\n") } : {}),
  };
}
