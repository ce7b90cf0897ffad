// One ACP session bound to one daemon session: it follows the daemon's records (replayed history, then
// live), turns them into session/update notifications, sends prompts as correlated commands and answers
// session/prompt when that prompt's turn ends, bridges questions to session/request_permission, and
// brings the daemon back when it dies under a running session. Other clients (the TUI, the gateway) may
// follow the same session at the same time; their prompts show up as user message chunks.
import { RequestError, type AgentContext, type PromptResponse, type RequestPermissionResponse, type SessionUpdate, type StopReason } from "@agentclientprotocol/sdk";
import { DaemonClient, DaemonRequestError } from "../client/daemon-client.ts";
import type { DaemonHandle } from "../client/daemon-launch.ts";
import type { ClientOperationResult } from "../protocol/operation.ts";
import type { SyncRecord } from "../protocol/sync-record.ts";
import type { ActiveMode, SyncSnapshotBody } from "../protocol/sync-shapes.ts";
import { configOptions, modelName, modeState, type CatalogView } from "./modes.ts";
import { answerFor, permissionOptions, questionTitle, type Interrogative } from "./permission.ts";
import type { DaemonPrompt } from "./prompt-content.ts";
import { RecordTranslator, type Rec } from "./record-updates.ts";
import { toolView } from "./tool-calls.ts";

export interface LinkDeps {
  /** Starts the session's daemon, or finds the running one (`resume`: a stopped session runs again). */
  launch(resume: boolean): Promise<DaemonHandle>;
  /** The session's state on disk (running, stopping, stopped), or null when it is gone. */
  state(): string | null;
  /** Diagnostics for stderr (never stdout: that is the protocol). */
  log(message: string): void;
  /** Milliseconds between reconnect attempts. */
  retryDelayMs?: number;
}

const STOP: Record<string, StopReason> = {
  end_turn: "end_turn",
  exit_tool: "end_turn",
  max_tool_turns: "max_turn_requests",
  refusal: "refusal",
  max_tokens: "max_tokens",
  interrupted: "cancelled",
};

interface PendingPrompt {
  promptId: string;
  cancelled: boolean;
  settle(result: ClientOperationResult): void;
}

export class SessionLink {
  readonly client: DaemonClient;
  private handle: DaemonHandle;
  private readonly translator: RecordTranslator;
  private readonly stop = new AbortController();
  private following: Promise<void> | null = null;
  /** The seq of the newest record applied (records are never applied twice, across restarts too). */
  private lastSeq = 0;
  /** Records up to this seq are history (session/load, session/resume). */
  private replayUntil = 0;
  /** History is not sent (session/resume): it only brings the translator up to date. */
  private quietHistory = false;
  private target = Infinity;
  private caughtUp: (() => void) | null = null;
  private readonly ownPrompts = new Set<string>();
  private readonly prompts = new Map<string, PendingPrompt>();
  /** Operation results seen before their prompt's POST answered (the stream can be faster). */
  private readonly results = new Map<string, ClientOperationResult>();
  private readonly asked = new Map<string, AbortController>();
  private active: ActiveMode | null = null;
  catalog: CatalogView = { facets: [], models: [] };
  private recovering: Promise<void> | null = null;
  /** Updates wait for this (a new session's updates go out after the session/new answer). */
  private gate: Promise<void> = Promise.resolve();
  private sending: Promise<unknown> = Promise.resolve();

  constructor(
    readonly sessionId: string,
    readonly cwd: string,
    handle: DaemonHandle,
    private readonly editor: AgentContext,
    private readonly deps: LinkDeps,
  ) {
    this.handle = handle;
    this.client = new DaemonClient({ url: () => this.handle.url, token: () => Promise.resolve(this.handle.token), retryDelayMs: deps.retryDelayMs ?? 300 });
    this.translator = new RecordTranslator({ cwd, isOwnPrompt: (id) => this.ownPrompts.has(id) });
  }

  /**
   * Follows the session until it has caught up with the newest record. `load`: what is already in the
   * journal is history, sent before this returns. `resume`: the history is read but not sent (open tool
   * calls, the plan and questions are known); what comes after it goes out after `release()`. `new`:
   * everything goes out after `release()`.
   */
  async start(how: "new" | "load" | "resume"): Promise<void> {
    const snap = await this.client.sync();
    this.active = snap.active;
    await this.refreshCatalog();
    if (how !== "new") this.replayUntil = Number(snap.seq);
    this.quietHistory = how === "resume";
    const replay = how === "load";
    if (!replay) this.gate = new Promise((resolve) => (this.release = resolve));
    const caught = new Promise<void>((resolve) => (this.caughtUp = resolve));
    this.following = this.client.follow(
      {
        onSnapshot: (s) => this.onSnapshot(s),
        onRecords: (records) => this.onRecords(records),
        onProblem: (message) => this.onProblem(message),
      },
      this.stop.signal,
    );
    await caught;
    if (replay) await this.sending;
  }

  /** Lets a new session's updates go out (called once session/new has been answered). */
  release: () => void = () => {};

  modes() {
    return modeState(this.catalog, this.active);
  }

  configOptions() {
    return configOptions(this.catalog, this.active);
  }

  /** The model in effect, without its level (empty before the first snapshot). */
  currentModel(): string {
    return modelName(this.active?.model ?? "");
  }

  async refreshCatalog(): Promise<void> {
    try {
      this.catalog = await this.client.json<CatalogView>("GET", "/daemon-state");
    } catch (error) {
      this.deps.log(`the session catalog could not be read: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Reads the facet and model in effect again (after a command switched them). */
  async refreshActive(): Promise<void> {
    const snap = await this.client.sync();
    this.active = snap.active ?? this.active;
  }

  private onSnapshot(snap: SyncSnapshotBody): void {
    this.active = snap.active ?? this.active;
    this.target = Number(snap.seq);
    if (this.lastSeq >= this.target) this.reachedTarget(snap);
  }

  private reachedTarget(snap?: SyncSnapshotBody): void {
    const done = this.caughtUp;
    this.caughtUp = null;
    done?.();
    // Questions still open after a replay (or a reconnect) are asked now.
    for (const q of (snap ?? this.client.snapshot)?.turn.pending_interrogatives ?? []) this.ask(q);
  }

  private async onRecords(records: SyncRecord[]): Promise<void> {
    for (const record of records as unknown as Rec[]) {
      const seq = Number(record.seq);
      if (seq <= this.lastSeq) continue;
      this.lastSeq = seq;
      const live = seq > this.replayUntil;
      const updates = this.translator.translate(record, live);
      // Quiet history only feeds the translator: the snapshot already has the facet and model in effect.
      if (live || !this.quietHistory) {
        for (const update of updates) this.send(update);
        this.observe(record, live);
      }
    }
    if (this.caughtUp && this.lastSeq >= this.target) this.reachedTarget();
  }

  private observe(record: Rec, live: boolean): void {
    switch (record.type) {
      case "operation_result": {
        const r = record.result;
        if (r.status !== "completed" && r.status !== "failed") return;
        const pending = this.prompts.get(r.operation);
        if (pending) pending.settle(r);
        else if (live) this.results.set(r.operation, r);
        return;
      }
      case "interrogative_opened":
        if (live) this.ask(record.interrogative);
        return;
      case "interrogative_closed":
        // Answered elsewhere (the TUI) or withdrawn: the editor's question is moot.
        this.asked.get(record.id)?.abort();
        return;
      case "turn_started":
        this.active = { facet: record.facet, model: record.model };
        return;
      case "facet_changed":
        this.active = { facet: record.facet, model: record.model };
        this.send({ sessionUpdate: "current_mode_update", currentModeId: record.facet });
        this.send({ sessionUpdate: "config_option_update", configOptions: this.configOptions() });
        return;
      case "model_changed":
        this.active = { facet: this.active?.facet ?? "", model: record.model };
        this.send({ sessionUpdate: "config_option_update", configOptions: this.configOptions() });
        return;
      case "daemon_catalog_changed":
        void this.refreshCatalog();
        return;
    }
  }

  send(update: SessionUpdate): void {
    const params = { sessionId: this.sessionId, update };
    this.sending = Promise.all([this.sending, this.gate]).then(() => this.editor.notify("session/update", params).catch((error: unknown) => this.deps.log(`session/update not sent: ${String(error)}`)));
  }

  private ask(question: Interrogative): void {
    if (this.asked.has(question.id)) return;
    const abort = new AbortController();
    this.asked.set(question.id, abort);
    const toolCall =
      question.kind === "permission"
        ? (() => {
            const id = this.callAwaiting(question);
            const view = toolView(question.tool, question.arguments, this.cwd, true);
            return { toolCallId: id ?? question.id, title: view.title, kind: view.kind, locations: view.locations, content: view.content, rawInput: question.arguments };
          })()
        : { toolCallId: question.id, title: questionTitle(question), kind: "other" as const };
    void (async () => {
      await this.gate;
      try {
        const response: RequestPermissionResponse = await this.editor.request("session/request_permission", { sessionId: this.sessionId, toolCall, options: permissionOptions(question) }, { cancellationSignal: abort.signal });
        if (abort.signal.aborted) return;
        const answer = answerFor(response.outcome);
        if (answer) await this.client.answer(question.id, answer);
      } catch (error) {
        // A question answered elsewhere or withdrawn in the meantime is not an error.
        if (!abort.signal.aborted && !(error instanceof DaemonRequestError && error.status === 409)) this.deps.log(`permission request ${question.id}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        this.asked.delete(question.id);
      }
    })();
  }

  /** The tool call a permission question is about: the newest running call of that tool. */
  private callAwaiting(question: Extract<Interrogative, { kind: "permission" }>): string | undefined {
    return this.translator.openCall(question.tool, question.arguments);
  }

  /** Sends a prompt and answers when its turn ends (or when it was cancelled). */
  async prompt(input: DaemonPrompt): Promise<PromptResponse> {
    await this.ensureServing();
    const accepted = await this.client.command<{ prompt_id: string; queued: boolean; operation: ClientOperationResult | null }>("/prompt", {
      text: input.text,
      ...(input.images.length > 0 ? { images: input.images } : {}),
      when_busy: "queue",
    });
    this.ownPrompts.add(accepted.prompt_id);
    const operation = accepted.operation?.operation;
    if (!operation) throw RequestError.internalError(undefined, "the daemon did not correlate the prompt");
    return new Promise<PromptResponse>((resolve, reject) => {
      const pending: PendingPrompt = {
        promptId: accepted.prompt_id,
        cancelled: false,
        settle: (result) => {
          this.prompts.delete(operation);
          // The turn's updates go out before its answer (they are queued in record order).
          void this.sending.then(() => finish(result));
        },
      };
      const finish = (result: ClientOperationResult) => {
        const outcome = (result.outcome ?? {}) as { stop_reason?: string; dequeued?: boolean };
        if (pending.cancelled || outcome.dequeued) return resolve({ stopReason: "cancelled" });
        if (result.status === "completed") return resolve({ stopReason: STOP[outcome.stop_reason ?? "end_turn"] ?? "end_turn" });
        reject(RequestError.internalError({ code: result.error?.code }, result.error?.message ?? "the turn failed"));
      };
      this.prompts.set(operation, pending);
      const early = this.results.get(operation);
      if (early) {
        this.results.delete(operation);
        pending.settle(early);
      }
    });
  }

  /** session/cancel: the editor's prompts end as cancelled; a running turn is interrupted, a queued prompt withdrawn. */
  async cancel(): Promise<void> {
    for (const abort of this.asked.values()) abort.abort();
    const mine = [...this.prompts.values()];
    if (mine.length === 0) return;
    for (const p of mine) p.cancelled = true;
    try {
      const snap = await this.client.sync();
      const queue = snap.turn.queue;
      let dequeued = false;
      // Only the newest queued input can be taken back; take ours back while it is the newest.
      while (queue.length > 0 && mine.some((p) => p.promptId === queue[queue.length - 1]!.id)) {
        await this.client.dequeueNewest();
        queue.pop();
        dequeued = true;
      }
      const stillQueued = new Set(queue.map((q) => q.id));
      if (snap.turn.busy && (!dequeued || mine.some((p) => !stillQueued.has(p.promptId)))) await this.client.interrupt();
    } catch (error) {
      this.deps.log(`cancel: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Runs a session command (/facet, /model, /compact, ...). */
  command(name: string, args: string[]) {
    return this.client.sessionCommand(name, args);
  }

  /** A session that was stopped (by hand, or by its idle exit) runs again before a prompt. */
  private async ensureServing(): Promise<void> {
    const snap = await this.client.sync().catch(() => null);
    if (snap?.session_state === "running" && snap.operation_window) return;
    await this.relaunch(true);
  }

  private onProblem(message: string): void {
    this.deps.log(`session ${this.sessionId}: ${message}`);
    if (this.stop.signal.aborted) return;
    // The stream broke: if the daemon is gone while the session should run, start it again.
    if (this.deps.state() === "running") void this.relaunch(false).catch(() => {});
  }

  private relaunch(resume: boolean): Promise<void> {
    this.recovering ??= (async () => {
      try {
        this.handle = await this.deps.launch(resume);
        this.client.snapshot = null;
      } catch (error) {
        this.deps.log(`session ${this.sessionId}: the daemon could not be started: ${error instanceof Error ? error.message : String(error)}`);
        throw error;
      } finally {
        this.recovering = null;
      }
    })();
    return this.recovering;
  }

  async close(): Promise<void> {
    this.stop.abort();
    for (const abort of this.asked.values()) abort.abort();
    for (const [op, p] of this.prompts) {
      this.prompts.delete(op);
      p.cancelled = true;
      p.settle({ version: 1, daemon_epoch: "", window_id: "", operation: op, status: "failed" });
    }
    this.release();
    await this.following?.catch(() => {});
  }
}
