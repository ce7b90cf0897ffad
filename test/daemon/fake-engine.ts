// A small EngineSession for daemon tests: it emits the event sequences the real engine emits (turn
// lifecycle, streamed parts, tool calls, permission asks, the queue), with gates so a test decides
// when a turn may finish. Prompts containing "ASK" open a permission interrogative first.
import { emptyConversation, type Conversation } from "../../src/agent/conversation.ts";
import { applyEvent, type EngineEvent, type InterrogativeAnswer, type QueuedInput } from "../../src/agent/events.ts";
import { SessionCommandError } from "../../src/agent/commands/types.ts";
import { type EngineSession, InterrogativeError, type SubmitInput } from "../../src/agent/session-api.ts";

const usage = { input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${String(++counter).padStart(6, "0")}`;

export interface FakeEngineOptions {
  /** When true, each turn waits after its first delta until `release()` is called. */
  hold?: boolean;
  /** The reply text (streamed in 3 deltas). */
  reply?: (prompt: string) => string;
  initialEvents?: EngineEvent[];
}

export class FakeEngine implements EngineSession {
  readonly conversation: Conversation = emptyConversation();
  /** Every prompt that reached a turn, in order: a test asserts a prompt ran exactly once. */
  readonly ran: string[] = [];
  closed = false;
  /** How many times a session command actually ran (a correlated retry must not run it again). */
  commandRuns = 0;
  private listeners = new Set<(e: EngineEvent) => void>();
  private pendingQueue: QueuedInput[] = [];
  private images = new Map<string, SubmitInput["images"]>();
  private running: Promise<void> | null = null;
  private gates: (() => void)[] = [];
  private asks = new Map<string, (a: InterrogativeAnswer | null) => void>();
  private withdrawn = new Set<string>();
  private interrupted = false;

  constructor(readonly id: string, private readonly options: FakeEngineOptions = {}) {
    for (const e of options.initialEvents ?? []) applyEvent(this.conversation, e);
  }

  get busy(): boolean {
    return this.running !== null;
  }
  get queue(): readonly QueuedInput[] {
    return this.pendingQueue;
  }

  subscribe(listener: (e: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  submit(input: SubmitInput): { input_id: string; queued: boolean } {
    const input_id = nextId("inp");
    if (input.images?.length) this.images.set(input_id, input.images);
    if (this.running) {
      this.pendingQueue.push({ id: input_id, text: input.text });
      this.emit({ type: "queue_changed", queue: [...this.pendingQueue] });
      return { input_id, queued: true };
    }
    this.start({ id: input_id, text: input.text });
    return { input_id, queued: false };
  }

  dequeueNewest(): QueuedInput | null {
    const item = this.pendingQueue.pop() ?? null;
    if (item) this.emit({ type: "queue_changed", queue: [...this.pendingQueue] });
    return item;
  }

  answer(id: string, answer: InterrogativeAnswer): void {
    if (this.withdrawn.has(id)) throw new InterrogativeError("interrogative_withdrawn", `interrogative ${id} was withdrawn when its turn was cancelled`);
    const resolve = this.asks.get(id);
    if (!resolve) throw new InterrogativeError("interrogative_not_pending", `interrogative ${id} is not pending`);
    this.asks.delete(id);
    this.emit({ type: "interrogative_closed", id, outcome: "answered", answer });
    resolve(answer);
  }

  commands() {
    return [{ name: "echo", usage: "/echo WORDS...", summary: "Answers with its arguments" }];
  }

  /** `/echo` answers with its words; anything else is unknown, as in the real engine. */
  async command(name: string, args: readonly string[]) {
    if (name !== "echo") throw new SessionCommandError("unknown_command", `there is no command /${name}; available: /echo`);
    if (args.length === 0) throw new SessionCommandError("invalid_command", "usage: /echo WORDS...");
    this.commandRuns++;
    return { message: args.join(" ") };
  }

  interrupt(): void {
    this.interrupted = true;
    for (const [id, resolve] of this.asks) {
      this.withdrawn.add(id);
      this.emit({ type: "interrogative_closed", id, outcome: "withdrawn" });
      resolve(null);
    }
    this.asks.clear();
    this.release();
  }

  /** Lets every held turn finish. */
  release(): void {
    const gates = this.gates;
    this.gates = [];
    for (const g of gates) g();
  }

  /** Whether a turn is waiting at its gate. */
  get held(): boolean {
    return this.gates.length > 0;
  }

  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async close(): Promise<void> {
    this.interrupt();
    await this.idle();
    this.closed = true;
  }

  /** Emits an event the fake's own turns do not produce (a plan update), as the engine would. */
  inject(event: EngineEvent): void {
    this.emit(event);
  }

  private emit(event: EngineEvent): void {
    applyEvent(this.conversation, event);
    for (const l of this.listeners) l(event);
  }

  private start(input: QueuedInput): void {
    this.running = this.turn(input).finally(() => {
      this.running = null;
      const next = this.pendingQueue.shift();
      if (next) {
        this.emit({ type: "queue_changed", queue: [...this.pendingQueue] });
        this.start(next);
      }
    });
  }

  private async turn(input: QueuedInput): Promise<void> {
    await Promise.resolve();
    this.interrupted = false;
    this.ran.push(input.text);
    const turn_id = nextId("trn");
    const message_id = nextId("msg");
    const part_id = nextId("prt");
    this.emit({ type: "turn_started", turn_id, model: "test-model", facet: "default" });
    const images = (this.images.get(input.id) ?? []).map((i) => ({ type: "image" as const, ...i }));
    this.emit({ type: "user_message", turn_id, message: { id: input.id, role: "user", origin: "prompt", content: [{ type: "text", text: input.text }, ...images], created_at: Date.now() } });
    if (input.text.includes("ASK")) {
      const id = nextId("itg");
      const answered = new Promise<InterrogativeAnswer | null>((r) => this.asks.set(id, r));
      this.emit({ type: "interrogative_opened", interrogative: { id, kind: "permission", turn_id, tool: "shell", arguments: { command: "ls" }, reason: "rule says ask" } });
      const answer = await answered;
      if (!answer) return this.finish(turn_id, "interrupted");
    }
    const reply = this.options.reply?.(input.text) ?? `echo: ${input.text}`;
    this.emit({ type: "assistant_message_started", turn_id, message_id, model: "test-model", created_at: Date.now() });
    this.emit({ type: "part_started", message_id, part_id, kind: "text" });
    const third = Math.ceil(reply.length / 3);
    this.emit({ type: "part_delta", message_id, part_id, delta: reply.slice(0, third) });
    if (this.options.hold) await new Promise<void>((r) => this.gates.push(r));
    // "STREAM": an endless answer, a 4 KiB delta every few milliseconds, until the turn is interrupted.
    while (input.text.includes("STREAM") && !this.interrupted) {
      await new Promise((r) => setTimeout(r, 5));
      if (!this.interrupted) this.emit({ type: "part_delta", message_id, part_id, delta: "word ".repeat(820) });
    }
    if (this.interrupted) {
      this.emit({ type: "part_discarded", message_id, part_id } as EngineEvent);
      this.emit({ type: "assistant_message_completed", message_id, usage, stop_reason: null });
      return this.finish(turn_id, "interrupted");
    }
    // Streaming arrives over time: each delta is its own commit (a later tick), as from a provider.
    await new Promise((r) => setTimeout(r, 0));
    this.emit({ type: "part_delta", message_id, part_id, delta: reply.slice(third, 2 * third) });
    await new Promise((r) => setTimeout(r, 0));
    this.emit({ type: "part_delta", message_id, part_id, delta: reply.slice(2 * third) });
    this.emit({ type: "part_completed", message_id, part: { id: part_id, type: "text", text: reply } });
    this.emit({ type: "assistant_message_completed", message_id, usage, stop_reason: "end_turn" });
    this.finish(turn_id, "end_turn");
  }

  private finish(turn_id: string, stop_reason: "end_turn" | "interrupted"): void {
    this.emit({ type: "turn_completed", turn_id, stop_reason, usage });
  }
}

/** One turn using every kind of event (for schema tests): reasoning, a tool call, a permission ask, a retry, the queue. */
export function richTurnEvents(turn: string): EngineEvent[] {
  const m = `msg_${turn}`;
  return [
    { type: "turn_started", turn_id: turn, model: "a-large", facet: "default" },
    { type: "user_message", turn_id: turn, message: { id: `msg_u${turn}`, role: "user", origin: "prompt", content: [{ type: "text", text: "list files" }, { type: "image", media_type: "image/png", data_base64: "iVBORw0KGgo=" }], created_at: 1 } },
    { type: "retry", turn_id: turn, attempt: 1, max_retries: 3, delay_ms: 500, status: 529, code: "overloaded", reason: "provider overloaded" },
    { type: "assistant_message_started", turn_id: turn, message_id: m, model: "a-large", created_at: 2 },
    { type: "part_started", message_id: m, part_id: "prt_r", kind: "reasoning" },
    { type: "part_delta", message_id: m, part_id: "prt_r", delta: "think" },
    { type: "part_completed", message_id: m, part: { id: "prt_r", type: "reasoning", text: "think", replay: { dialect: "a_messages", block: { type: "thinking", thinking: "think", signature: "sig" } } } },
    { type: "part_started", message_id: m, part_id: "prt_x", kind: "text" },
    { type: "part_discarded", message_id: m, part_id: "prt_x" } as EngineEvent,
    { type: "part_started", message_id: m, part_id: "prt_c", kind: "tool_call", call_id: "call_1", name: "shell" },
    { type: "part_delta", message_id: m, part_id: "prt_c", delta: '{"command":"ls"}' },
    { type: "part_completed", message_id: m, part: { id: "prt_c", type: "tool_call", call_id: "call_1", name: "shell", arguments: { command: "ls" } } },
    { type: "assistant_message_completed", message_id: m, usage, stop_reason: "tool_use" },
    { type: "interrogative_opened", interrogative: { id: "itg_1", kind: "permission", turn_id: turn, tool: "shell", arguments: { command: "ls" }, reason: "ask rule" } },
    { type: "interrogative_closed", id: "itg_1", outcome: "answered", answer: { decision: "allow_always", scope: "session" } },
    { type: "tool_call_started", turn_id: turn, call_id: "call_1", name: "shell", arguments: { command: "ls" } },
    { type: "progress", turn_id: turn, text: "listing" },
    { type: "tool_call_completed", turn_id: turn, results_message_id: `msg_t${turn}`, result: { call_id: "call_1", name: "shell", status: "completed", output: "a\nb\n" }, duration_ms: 12, completed_at: 3 },
    { type: "queue_changed", queue: [{ id: "inp_1", text: "next" }] },
    { type: "notice", level: "warning", message: "skipped a symlink" },
    { type: "turn_completed", turn_id: turn, stop_reason: "end_turn", usage },
  ];
}
