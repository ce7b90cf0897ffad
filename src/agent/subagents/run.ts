// One subagent run: a turn of the engine's own loop (runTurn) on a runtime derived from the root
// session's, with its own conversation, model, system prompt, tools and tool-turn budget. Its permission
// asks go through the root session (named after the subagent); its own messages stay in memory and the
// root session records only subagent_* events about it. The last assistant text is its report.
import { toolListed } from "../../config/builtin-names.ts";
import { emptyUsage, type Usage } from "../../providers/events.ts";
import type { ReasoningRequest } from "../../providers/request.ts";
import type { ResolvedProvider } from "../../providers/resolve.ts";
import type { ResolvedModel } from "../../config/models.ts";
import { createProgressUpdateTool } from "../../tools/progress-update.ts";
import { toolJsonSchema, type Tool } from "../../tools/tool.ts";
import type { Conversation } from "../conversation.ts";
import { applyEvent, type EngineErrorInfo, type EngineEvent, type SubagentStatus, type TurnStopReason } from "../events.ts";
import { Reminders } from "../reminders.ts";
import type { AgentRuntime } from "../runtime.ts";
import { runTurn } from "../turn.ts";
import { type SubagentDefinition, subagentToolNames } from "./definitions.ts";
import { reconnectableFetch, type ReconnectableFetch } from "./reconnect.ts";
import { MAX_REPORT_CHARS } from "./settings.ts";
import type { Watched } from "./watchdog.ts";

export interface SubagentModelChoice {
  model: ResolvedModel;
  provider: ResolvedProvider;
  reasoning: ReasoningRequest | null;
}

export interface SubagentRunSpec {
  id: string;
  definition: SubagentDefinition;
  /** The short label the parent gave the task. */
  description: string;
  prompt: string;
  parentToolCallId: string;
  /** The root session's runtime (events and permission asks bound to the root session). */
  parent: AgentRuntime;
  choice: SubagentModelChoice;
  systemPrompt: string;
  disabledReminders: readonly string[];
}

export interface SubagentOutcome {
  status: SubagentStatus;
  /** The final assistant text, cut to MAX_REPORT_CHARS. */
  report: string;
  usage: Usage;
  toolTurns: number;
  /** How its turn ended (a completed run may still be incomplete: tool budget, output limit, refusal). */
  stop: TurnStopReason;
  error?: EngineErrorInfo;
}

/** Session tools a subagent never gets (their traits say why); the session's progress_update is replaced by its own. */
const WITHHELD = new Set<string>([...subagentToolNames().forbiddenTools.keys(), "progress_update"]);

export class SubagentRun implements Watched {
  lastActivity: number;
  waitingOnModel = false;
  private readonly conversation: Conversation = { entries: [] };
  private readonly connection: ReconnectableFetch;
  private readonly toolRounds = new Set<string>();
  private finished: Extract<EngineEvent, { type: "turn_completed" }> | null = null;

  constructor(private readonly spec: SubagentRunSpec) {
    this.lastActivity = spec.parent.clock.now();
    this.connection = reconnectableFetch(spec.parent.callDeps.fetch);
  }

  get id(): string {
    return this.spec.id;
  }

  /** The watchdog found it silent: say so, and make the provider layer open a new stream. */
  onStall(idleMs: number): void {
    this.spec.parent.emit({ type: "subagent_stalled", subagent_id: this.spec.id, name: this.spec.definition.name, idle_ms: idleMs });
    this.connection.reconnect(
      `subagent '${this.spec.definition.name}' showed no activity for ${Math.round(idleMs / 1000)} s (daemon.subagent_stall_threshold_secs); its provider stream was reopened`,
    );
  }

  async run(signal: AbortSignal): Promise<SubagentOutcome> {
    const { spec } = this;
    const rt = this.runtime();
    spec.parent.emit({
      type: "subagent_started",
      subagent_id: spec.id,
      name: spec.definition.name,
      parent_tool_call_id: spec.parentToolCallId,
      model: spec.choice.model.key,
      description: spec.description,
    });
    let crash: EngineErrorInfo | null = null;
    try {
      await runTurn(rt, this.conversation, { turnId: rt.newId("turn"), content: [{ type: "text", text: spec.prompt }], messageId: rt.newId("msg"), signal });
    } catch (error) {
      crash = { code: "engine", message: (error as Error)?.message ?? String(error) };
    }
    const outcome = this.outcome(crash, signal);
    spec.parent.emit({
      type: "subagent_completed",
      subagent_id: spec.id,
      name: spec.definition.name,
      status: outcome.status,
      report: outcome.report,
      usage: outcome.usage,
      tool_turns: outcome.toolTurns,
      ...(outcome.error ? { error: outcome.error } : {}),
    });
    return outcome;
  }

  private runtime(): AgentRuntime {
    const { spec } = this;
    const { parent, definition, choice } = spec;
    const progress = createProgressUpdateTool((text) => parent.emit({ type: "subagent_progress", subagent_id: spec.id, name: definition.name, activity: "progress", text }));
    const allowed = definition.tools === null ? null : new Set([...definition.tools, "exit_tool"]);
    const tools = new Map<string, Tool>([[progress.name, progress]]);
    for (const t of parent.tools.list()) if (!WITHHELD.has(t.name) && (allowed === null || toolListed(allowed, t.name))) tools.set(t.name, t);
    const specs = choice.model.tool_loading === "no_tools" ? [] : [...tools.values()].map((t) => ({ name: t.name, description: t.description, input_schema: toolJsonSchema(t) }));
    const ref = { id: spec.id, name: definition.name };
    // Everything else is the root session's (clock, ids, tool context, redaction, retry, compaction);
    // its inbox is not: notifications belong to the root conversation.
    const { inbox: _rootInbox, ...shared } = parent;
    return {
      ...shared,
      model: choice.model,
      provider: choice.provider,
      reasoning: choice.reasoning,
      callDeps: { ...parent.callDeps, fetch: this.connection.fetch },
      emit: (e) => this.observe(e),
      systemPrompt: () => spec.systemPrompt,
      tools: { get: (name) => tools.get(name), list: () => [...tools.values()] },
      toolSpecs: () => specs,
      maxToolTurns: definition.maxToolTurns,
      reminders: new Reminders(spec.disabledReminders),
      authorize: (req, signal) => parent.authorize({ ...req, subagent: ref }, signal),
      // Its Stop hooks are SubagentStop; it has no prompt of the user's to check.
      ...(parent.hooks ? { hooks: parent.hooks.forSubagent() } : {}),
    };
  }

  /** Every event of the subagent's loop: folded into its conversation, counted as activity, summarized upward. */
  private observe(e: EngineEvent): void {
    const { parent, id } = this.spec;
    const name = this.spec.definition.name;
    const now = parent.clock.now();
    this.lastActivity = Math.max(this.lastActivity, now);
    applyEvent(this.conversation, e);
    switch (e.type) {
      case "assistant_message_started":
        this.waitingOnModel = true;
        return;
      case "assistant_message_completed":
        this.waitingOnModel = false;
        return;
      case "retry":
        // The announced wait is not a stall: activity is due when it ends.
        this.lastActivity = now + e.delay_ms;
        parent.emit({ type: "subagent_progress", subagent_id: id, name, activity: "retry", text: `retrying in ${Math.round(e.delay_ms / 1000)} s: ${e.reason}`.slice(0, 300) });
        return;
      case "tool_call_started":
        parent.emit({ type: "subagent_progress", subagent_id: id, name, activity: "tool_call", text: e.name });
        return;
      case "tool_call_completed":
        this.toolRounds.add(e.results_message_id);
        return;
      case "turn_completed":
        this.finished = e;
        return;
      default:
        return;
    }
  }

  private outcome(crash: EngineErrorInfo | null, signal: AbortSignal): SubagentOutcome {
    const done = this.finished;
    const usage = done?.usage ?? emptyUsage();
    const report = cut(lastAssistantText(this.conversation));
    const base = { report, usage, toolTurns: this.toolRounds.size, stop: done?.stop_reason ?? ("error" as const) };
    if (signal.aborted || done?.stop_reason === "interrupted") return { ...base, status: "cancelled" };
    const error = crash ?? (done?.stop_reason === "error" ? (done.error ?? { code: "engine", message: "the subagent's turn failed" }) : null);
    if (error || !done) return { ...base, status: "failed", error: error ?? { code: "engine", message: "the subagent's turn did not finish" } };
    return { ...base, status: "completed" };
  }
}

function lastAssistantText(conversation: Conversation): string {
  for (let i = conversation.entries.length - 1; i >= 0; i--) {
    const e = conversation.entries[i]!;
    if (e.role !== "assistant") continue;
    const text = e.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n").trim();
    if (text) return text;
  }
  return "";
}

function cut(text: string): string {
  if (text.length <= MAX_REPORT_CHARS) return text;
  return `${text.slice(0, MAX_REPORT_CHARS)}\n[report cut at ${MAX_REPORT_CHARS} characters]`;
}
