// A running session: the conversation (a fold of its events), the input queue, the running turn and its
// cancellation, and the interrogatives (permission asks) waiting for a person.
import { SESSION_COMMANDS } from "./commands/index.ts";
import { SessionCommandError, type CommandServices, type SessionCommand, type SessionCommandInfo, type SessionCommandResult } from "./commands/types.ts";
import type { Conversation, UserContentPart } from "./conversation.ts";
import { applyEvent, foldEvents, type EngineEvent, type Interrogative, type InterrogativeAnswer, type QueuedInput } from "./events.ts";
import type { Authorization, PermissionDecision, PermissionGate, PermissionRequest } from "./permission.ts";
import type { AgentRuntime } from "./runtime.ts";
import { InterrogativeError, type EngineSession, type SubmitInput } from "./session-api.ts";
import { runTurn } from "./turn.ts";
import type { PlanItem } from "../protocol/plan.ts";

export interface AgentSessionOptions {
  runtime: Omit<AgentRuntime, "emit" | "authorize">;
  gate: PermissionGate;
  /**
   * Whether a person can answer interrogatives. Headless runs (`agent exec`) deny a call the rules want
   * to ask about, with a message saying so.
   */
  interactive: boolean;
  /** Events of an earlier run of this session (resume): the conversation is rebuilt from them. */
  initialEvents?: Iterable<EngineEvent>;
  /** What session commands may reach (tool servers...). */
  services?: Partial<CommandServices>;
  /** The commands offered; default: every built-in session command. */
  commands?: readonly SessionCommand[];
  /** Commands that come and go (a tool server's prompts), offered after the others. */
  dynamicCommands?: () => readonly SessionCommand[];
  /** Releases what the session holds (shell, tool servers); called once by close(). */
  onClose?: () => Promise<void>;
  /** Asked when the queue is empty after a turn: the prompt of an automatic continuation turn (an open goal), or null. */
  continuation?: () => string | null;
}

interface Pending {
  interrogative: Interrogative;
  resolve(answer: InterrogativeAnswer): void;
  reject(error: Error): void;
}

/** Remembered withdrawn ids, so a late answer gets `interrogative_withdrawn` rather than `not_pending`. */
const WITHDRAWN_MEMORY = 256;

export class AgentSession implements EngineSession {
  readonly id: string;
  readonly conversation: Conversation;
  private readonly listeners = new Set<(e: EngineEvent) => void>();
  private readonly runtime: AgentRuntime;
  private readonly inputs: (QueuedInput & { content: UserContentPart[] })[] = [];
  private readonly pending = new Map<string, Pending>();
  private readonly withdrawn: string[] = [];
  private controller: AbortController | null = null;
  private turnId = "";
  private loop: Promise<void> | null = null;
  private idleWaiters: (() => void)[] = [];
  private closed = false;
  /** What the person ran with `!command` since the last prompt: text parts put before the next prompt. */
  private readonly context: string[] = [];

  constructor(private readonly options: AgentSessionOptions) {
    this.id = options.runtime.sessionId;
    this.conversation = foldEvents(options.initialEvents ?? []);
    this.runtime = { ...options.runtime, emit: (e) => this.emit(e), authorize: (req, signal) => this.authorize(req, signal) };
  }

  /** The runtime with this session's event stream and permission asks bound in: subagents run on a derived copy. */
  get engineRuntime(): AgentRuntime {
    return this.runtime;
  }

  get busy(): boolean {
    return this.loop !== null;
  }

  get queue(): readonly QueuedInput[] {
    return this.inputs.map(({ id, text }) => ({ id, text }));
  }

  subscribe(listener: (event: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  submit(input: SubmitInput): { input_id: string; queued: boolean } {
    if (this.closed) throw new Error("the session is closed");
    // The input's id is the id of the user message it becomes, so a host can match a prompt to its turn.
    const id = this.runtime.newId("msg");
    const context = this.context.splice(0).map((text) => ({ type: "text" as const, text }));
    const content: UserContentPart[] = [...context, { type: "text", text: input.text }, ...(input.images ?? []).map((i) => ({ type: "image" as const, ...i }))];
    const queued = this.busy;
    this.inputs.push({ id, text: input.text, content });
    if (queued) this.emitQueue();
    else this.loop = this.drain();
    return { input_id: id, queued };
  }

  dequeueNewest(): QueuedInput | null {
    // The running turn's input left `inputs` when the turn started, so everything here is still queued.
    const last = this.inputs.pop();
    if (!last) return null;
    this.emitQueue();
    return { id: last.id, text: last.text };
  }

  answer(interrogativeId: string, answer: InterrogativeAnswer): void {
    const p = this.pending.get(interrogativeId);
    if (!p) {
      if (this.withdrawn.includes(interrogativeId)) {
        throw new InterrogativeError("interrogative_withdrawn", `the question ${interrogativeId} was withdrawn: its turn was cancelled`);
      }
      throw new InterrogativeError("interrogative_not_pending", `no pending question has the id ${interrogativeId}`);
    }
    const allowed = p.interrogative.kind === "permission" ? ["allow_once", "allow_always", "deny"] : p.interrogative.kind === "elicitation" ? ["accept", "decline", "cancel"] : ["approve", "reject"];
    if (!allowed.includes(answer.decision)) {
      throw new InterrogativeError("interrogative_not_pending", `the answer '${answer.decision}' does not fit a ${p.interrogative.kind} question; allowed: ${allowed.join(", ")}`);
    }
    this.pending.delete(interrogativeId);
    this.emit({ type: "interrogative_closed", id: interrogativeId, outcome: "answered", answer });
    p.resolve(answer);
  }

  /** The interrogatives waiting for an answer (a client that reconnects shows them again). */
  pendingInterrogatives(): Interrogative[] {
    return [...this.pending.values()].map((p) => p.interrogative);
  }

  /** A status line from the model's progress_update tool. */
  progress(text: string): void {
    this.emit({ type: "progress", turn_id: this.turnId, text });
  }

  /** The model's plan changed (the plan tool): the whole checklist. */
  planUpdated(items: PlanItem[]): void {
    this.emit({ type: "plan_updated", turn_id: this.turnId, items });
  }

  /** Something the user should know that is not part of a turn (a tool server connected or failed). */
  notice(level: "info" | "warning", message: string): void {
    this.emit({ type: "notice", level, message });
  }

  commands(): SessionCommandInfo[] {
    return this.allCommands().map(({ name, usage, summary }) => ({ name, usage, summary }));
  }

  /** The built-in commands, then those of the moment (tool servers' prompts). */
  private allCommands(): readonly SessionCommand[] {
    const dynamic = this.options.dynamicCommands?.() ?? [];
    return dynamic.length ? [...(this.options.commands ?? SESSION_COMMANDS), ...dynamic] : (this.options.commands ?? SESSION_COMMANDS);
  }

  async command(name: string, args: readonly string[]): Promise<SessionCommandResult> {
    const commands = this.allCommands();
    // Clients may lowercase what was typed; a prompt's name keeps its server's case.
    const command = commands.find((c) => c.name === name) ?? commands.find((c) => c.name.toLowerCase() === name.toLowerCase());
    if (!command) throw new SessionCommandError("unknown_command", `there is no command /${name}; available: ${commands.map((c) => `/${c.name}`).join(", ")}`);
    if (this.closed) throw new SessionCommandError("command_unavailable", "the session is closed");
    if (this.busy && !command.whileBusy) throw new SessionCommandError("command_unavailable", `/${name} cannot run while a turn is running; interrupt it (Esc) or wait for it to end`);
    const services: CommandServices = { mcp: null, ...this.options.services };
    if (command.whileBusy) return command.run({ session: this, runtime: this.runtime, services, signal: new AbortController().signal }, args);
    return this.holding((signal) => command.run({ session: this, runtime: this.runtime, services, signal }, args));
  }

  /** Runs a command that must not overlap a turn (/compact): input sent meanwhile queues, interrupt() cancels it. */
  private holding<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    this.controller = controller;
    const run = work(controller.signal);
    const settle = () => {
      this.controller = null;
      return this.drain();
    };
    this.loop = run.then(settle, settle);
    return run;
  }

  interrupt(): void {
    this.controller?.abort(new Error("interrupted by the user"));
  }

  idle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.inputs.length = 0;
    this.interrupt();
    await this.loop;
    await this.options.onClose?.();
  }

  private emit(event: EngineEvent): void {
    applyEvent(this.conversation, event);
    for (const listener of this.listeners) listener(event);
  }

  private emitQueue(): void {
    this.emit({ type: "queue_changed", queue: this.queue as QueuedInput[] });
  }

  private async drain(): Promise<void> {
    try {
      for (let next = this.inputs.shift() ?? this.continuation(); next; next = this.inputs.shift() ?? this.continuation()) {
        this.emitQueue();
        this.controller = new AbortController();
        this.turnId = this.runtime.newId("turn");
        try {
          await runTurn(this.runtime, this.conversation, { turnId: this.turnId, content: next.content, messageId: next.id, signal: this.controller.signal, origin: (next as { origin?: "continuation" }).origin ?? "prompt" });
        } catch (error) {
          this.emit({ type: "notice", level: "warning", message: `the turn failed unexpectedly: ${(error as Error)?.message ?? String(error)}` });
        }
        this.withdrawAll();
        this.controller = null;
        if (this.closed) break;
      }
    } finally {
      this.loop = null;
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  private continuation(): { id: string; text: string; content: UserContentPart[]; origin: "continuation" } | undefined {
    const text = this.closed ? null : (this.options.continuation?.() ?? null);
    return text === null ? undefined : { id: this.runtime.newId("msg"), text, content: [{ type: "text", text }], origin: "continuation" };
  }

  /** Text the model reads before the next prompt (the output of a `!command` the person ran). */
  addContext(text: string): void {
    this.context.push(text);
  }

  /** What the permission rules say of a call, without asking anyone (a command's `@file` is inlined only when a read is allowed). */
  checkCall(req: PermissionRequest): Promise<PermissionDecision> {
    return this.options.gate.check(req);
  }

  /** A call the person asked for outside the model's turn (`!command`), through the same gate and asks as the model's. */
  authorizeCall(req: PermissionRequest, signal: AbortSignal): Promise<Authorization> {
    return this.authorize(req, signal);
  }

  /** Records a change of session state made outside a turn's loop (facet, model, goal, notification). */
  record(event: EngineEvent): void {
    this.emit(event);
  }

  /** Asks the person a goal approval in the running turn; null in a headless run, where nobody can answer. */
  async question(q: Omit<Extract<Interrogative, { kind: "goal_approval" }>, "id" | "turn_id">, signal: AbortSignal): Promise<InterrogativeAnswer | null> {
    if (!this.options.interactive) return null;
    return this.ask({ ...q, id: this.runtime.newId("ask"), turn_id: this.turnId }, signal);
  }

  /** Asks the person to approve loading an extension, outside any turn; null in a headless run. */
  async approveExtension(q: Omit<Extract<Interrogative, { kind: "extension_approval" }>, "id">, signal: AbortSignal): Promise<InterrogativeAnswer | null> {
    if (!this.options.interactive) return null;
    return this.ask({ ...q, id: this.runtime.newId("ask") }, signal);
  }

  /** A tool server's form for the person (MCP elicitation); null in a headless run. Withdrawn when the server's request is cancelled. */
  async elicit(q: Omit<Extract<Interrogative, { kind: "elicitation" }>, "id" | "turn_id">, signal: AbortSignal): Promise<InterrogativeAnswer | null> {
    if (!this.options.interactive) return null;
    return this.ask({ ...q, id: this.runtime.newId("ask"), ...(this.turnId && this.busy ? { turn_id: this.turnId } : {}) }, signal);
  }

  private async authorize(req: PermissionRequest, signal: AbortSignal): Promise<Authorization> {
    const checked = await this.options.gate.check(req, signal);
    if (checked.kind === "deny") return { allowed: false, message: `Permission denied: ${checked.reason}. Do not retry this call; choose another approach or ask the user.` };
    // A PreToolUse hook's decision (docs/hooks.md): it answers a question, or asks one the rules would not.
    if (req.hook?.decision === "allow") return { allowed: true };
    const decision = req.hook?.decision === "ask" && checked.kind === "allow" ? { kind: "ask" as const, reason: `a PreToolUse hook asks${req.hook.reason ? `: ${req.hook.reason}` : ""}`, suggestedRule: "" } : checked;
    if (decision.kind === "allow") return { allowed: true };
    if (!this.options.interactive) {
      return { allowed: false, message: `Permission denied: this call needs the user's approval (${decision.reason}), and nobody can answer in a headless run. Choose another approach, or tell the user which permission rule would allow it.` };
    }
    const asked: Interrogative = {
      id: this.runtime.newId("ask"),
      kind: "permission",
      turn_id: this.turnId,
      tool: req.tool,
      arguments: req.input,
      reason: decision.reason,
      // What "allow always" will write, so the person sees the rule before choosing it.
      ...(decision.suggestedRule ? { suggested_rule: decision.suggestedRule } : {}),
    };
    const answer = await this.ask(req.subagent ? { ...asked, subagent: req.subagent } : asked, signal);
    const allowed = answer.decision === "allow_once" || answer.decision === "allow_always";
    this.options.gate.recordAnswer(req, allowed);
    if (answer.decision === "allow_always") await this.options.gate.allowAlways(req, answer.scope);
    if (allowed) return { allowed: true };
    const message = answer.decision === "deny" && answer.message ? ` The user said: ${answer.message}` : "";
    return { allowed: false, message: `The user denied this call.${message}` };
  }

  private ask(interrogative: Interrogative, signal: AbortSignal): Promise<InterrogativeAnswer> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      this.pending.set(interrogative.id, { interrogative, resolve, reject });
      signal.addEventListener("abort", () => this.withdraw(interrogative.id, signal.reason), { once: true });
      this.emit({ type: "interrogative_opened", interrogative });
    });
  }

  private withdraw(id: string, reason: unknown): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    this.withdrawn.push(id);
    if (this.withdrawn.length > WITHDRAWN_MEMORY) this.withdrawn.shift();
    this.emit({ type: "interrogative_closed", id, outcome: "withdrawn" });
    p.reject(reason instanceof Error ? reason : new Error("withdrawn"));
  }

  private withdrawAll(): void {
    // An extension approval belongs to the session: it stays open across turns.
    for (const [id, p] of [...this.pending]) if (p.interrogative.kind !== "extension_approval") this.withdraw(id, new Error("the turn ended"));
  }
}
