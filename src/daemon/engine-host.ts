// Hosts the engine of a running session: journals every engine event through the hub, keeps the turn
// state the sync snapshot and summary report (folded from committed records, so it also holds after a
// restart: turn, questions, queue, the model's plan), and
// moves correlated prompt results along their lifecycle: admitted -> in_progress -> completed | failed.
import type { EngineEvent, Interrogative, InterrogativeAnswer, QueuedInput } from "../agent/events.ts";
import { SessionCommandError, type SessionCommandInfo, type SessionCommandResult } from "../agent/commands/types.ts";
import { type EngineSession, InterrogativeError, type SubmitInput } from "../agent/session-api.ts";
import { ProtocolError } from "../protocol/errors.ts";
import type { PlanItem } from "../protocol/plan.ts";
import type { Cursors } from "./cursors.ts";
import type { RecordHub } from "./hub.ts";
import type { OperationKey, Operations } from "./operations.ts";
import { parseRecord, type StoredRecord } from "./store/index.ts";

export class EngineHost {
  turnId: string | null = null;
  /** The model's plan as the newest plan_updated record left it (empty: none). */
  plan: PlanItem[] = [];
  readonly pending = new Map<string, Interrogative>();
  private queueState: QueuedInput[] = [];
  private engine: EngineSession | null = null;
  private unsubscribe: (() => void) | null = null;
  /** Correlated prompts by input id, in submission order, until their turn starts. */
  private waiting = new Map<string, OperationKey>();
  private running = new Map<string, OperationKey>();

  constructor(
    private readonly hub: RecordHub,
    private readonly ops: Operations,
    private readonly cursors: Cursors,
  ) {
    hub.observe((records) => {
      for (const r of records) this.observe(r);
    });
  }

  /** Folds records committed before this daemon started (the turn state survives a restart). */
  replay(records: Iterable<StoredRecord>): void {
    for (const r of records) this.observe(r, false);
  }

  attach(engine: EngineSession): void {
    this.engine = engine;
    this.unsubscribe = engine.subscribe((event) => this.hub.publish(this.endedBy(event)));
  }

  /**
   * Ends the running turn because of `error` (a storage fault): the engine is interrupted and its
   * `turn_completed` is recorded as a failure with that error, so every client says why the turn ended.
   */
  failTurn(error: { code: string; message: string }): void {
    if (!this.engine?.busy || this.failure) return;
    this.failure = error;
    this.engine.interrupt();
  }

  private failure: { code: string; message: string } | null = null;

  private endedBy(event: EngineEvent): EngineEvent {
    if (event.type !== "turn_completed" || !this.failure) return event;
    const error = this.failure;
    this.failure = null;
    return event.stop_reason === "interrupted" ? { ...event, stop_reason: "error", error } : event;
  }

  get attached(): boolean {
    return this.engine !== null;
  }

  get busy(): boolean {
    return this.engine?.busy ?? false;
  }

  get queue(): readonly QueuedInput[] {
    return this.engine ? this.engine.queue : this.queueState;
  }

  submit(input: SubmitInput, key: OperationKey | null, reject: boolean): { input_id: string; queued: boolean } {
    const engine = this.require();
    if (reject && engine.busy) throw new ProtocolError("turn_in_flight", undefined, "a turn is running; send the prompt again when it ends, or send it with when_busy: queue");
    const accepted = engine.submit(input);
    if (key) this.waiting.set(accepted.input_id, key);
    return accepted;
  }

  dequeueNewest(): QueuedInput | null {
    const item = this.require().dequeueNewest();
    if (item) {
      const key = this.waiting.get(item.id);
      this.waiting.delete(item.id);
      if (key) this.ops.advance(key, "completed", { outcome: { dequeued: true } });
    }
    return item;
  }

  answer(id: string, answer: InterrogativeAnswer): void {
    try {
      this.require().answer(id, answer);
    } catch (error) {
      if (error instanceof InterrogativeError) throw new ProtocolError(error.code, undefined, error.message);
      throw error;
    }
  }

  interrupt(): void {
    this.require().interrupt();
  }

  commands(): SessionCommandInfo[] {
    return this.engine?.commands() ?? [];
  }

  async command(name: string, args: readonly string[]): Promise<SessionCommandResult> {
    try {
      return await this.require().command(name, args);
    } catch (error) {
      if (error instanceof SessionCommandError) throw new ProtocolError(error.code, undefined, error.message);
      throw error;
    }
  }

  /** Closes the engine (its turn is interrupted) and stops journaling its events. */
  async close(): Promise<void> {
    const engine = this.engine;
    if (!engine) return;
    await engine.close();
    this.unsubscribe?.();
    this.engine = null;
    this.hub.flush();
  }

  private require(): EngineSession {
    if (!this.engine) throw new ProtocolError("session_stopped", 409, "the session is stopped; continue it (agent continue) to send commands");
    return this.engine;
  }

  private observe(record: StoredRecord, live = true): void {
    switch (record.type) {
      case "turn_started":
      case "turn_completed":
      case "interrogative_opened":
      case "interrogative_closed":
      case "queue_changed":
      case "user_message":
      case "plan_updated":
        break;
      default:
        return;
    }
    const body = parseRecord(record) as Record<string, any>;
    switch (record.type) {
      case "turn_started":
        this.turnId = body.turn_id;
        return;
      case "turn_completed": {
        this.turnId = null;
        this.pending.clear();
        const key = this.running.get(body.turn_id);
        if (!key || !live) return;
        this.running.delete(body.turn_id);
        const outcome = { turn_id: body.turn_id, stop_reason: body.stop_reason };
        const cursor = this.cursors.encode(record.seq);
        if (body.stop_reason === "error") this.ops.advance(key, "failed", { outcome, error: { code: body.error?.code ?? "turn_failed", message: body.error?.message }, committed_cursor: cursor });
        else this.ops.advance(key, "completed", { outcome, committed_cursor: cursor });
        return;
      }
      case "interrogative_opened":
        this.pending.set(body.interrogative.id, body.interrogative);
        return;
      case "interrogative_closed":
        this.pending.delete(body.id);
        return;
      case "queue_changed":
        this.queueState = body.queue;
        return;
      case "plan_updated":
        this.plan = body.items;
        return;
      case "user_message": {
        if (!live || body.message?.origin !== "prompt") return;
        // The engine's user message carries the input id; otherwise prompts start in submission order.
        let id: string | undefined = this.waiting.has(body.message.id) ? body.message.id : undefined;
        if (!id) {
          const queued = new Set(this.queue.map((q) => q.id));
          id = [...this.waiting.keys()].find((k) => !queued.has(k));
        }
        if (!id) return;
        const key = this.waiting.get(id)!;
        this.waiting.delete(id);
        this.running.set(body.turn_id, key);
        this.ops.advance(key, "in_progress", { outcome: { turn_id: body.turn_id }, committed_cursor: this.cursors.encode(record.seq) });
        return;
      }
    }
  }
}
