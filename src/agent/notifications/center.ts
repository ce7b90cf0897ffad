// Notifications: things the model should know that happened outside its own calls (a tool server
// dropped or came back). Each is recorded as a `notification` event when it arrives; its user message
// (origin `notification`, the same id) enters the conversation only at a safe point, never between a
// tool call and its result:
// - auto_drain_notifications on (default): at once when no turn runs, else before the running turn's
//   next model request (or between turns, when the turn had no further request);
// - off: it waits for the next turn, and enters before that turn's first model request.
// notifications.trigger_turn and trigger_types are reserved by the spec and have no effect: a
// notification never starts a turn by itself.
import type { Clock } from "../../util/clock.ts";
import type { UserMessage } from "../conversation.ts";
import type { EngineEvent } from "../events.ts";
import type { AgentNotification } from "../../protocol/notification.ts";

export interface NotificationHost {
  readonly busy: boolean;
  record(event: EngineEvent): void;
}

export class NotificationCenter {
  /** Recorded, not yet in the conversation. */
  private waiting: AgentNotification[] = [];
  private host: NotificationHost | null = null;

  constructor(
    readonly autoDrain: boolean,
    private readonly deps: { clock: Clock; newId(prefix: string): string },
    initialEvents: Iterable<EngineEvent> = [],
  ) {
    // A resumed session still owes the conversation the notifications whose message never followed.
    const delivered = new Set<string>();
    const received: AgentNotification[] = [];
    for (const e of initialEvents) {
      if (e.type === "notification") received.push(e.notification);
      else if (e.type === "user_message" && e.message.origin === "notification") delivered.add(e.message.id);
    }
    this.waiting = received.filter((n) => !delivered.has(n.id));
  }

  bind(host: NotificationHost): void {
    this.host = host;
  }

  get pending(): readonly AgentNotification[] {
    return this.waiting;
  }

  notify(source: string, text: string): AgentNotification {
    const host = this.requireHost();
    const notification: AgentNotification = { id: this.deps.newId("ntf"), source, text, created_at: this.deps.clock.now() };
    host.record({ type: "notification", notification, delivery: this.autoDrain ? "drained" : "queued" });
    this.waiting.push(notification);
    if (this.autoDrain && !host.busy) this.flush("");
    return notification;
  }

  /** Between turns (the queue is empty): auto-drained notifications that arrived late in the turn go in now. */
  betweenTurns(): void {
    if (this.autoDrain) this.flush("");
  }

  /** The turn loop's inbox, before each model request: what may enter the conversation now. */
  take(turnStart: boolean): UserMessage[] {
    if (!this.autoDrain && !turnStart) return [];
    return this.waiting.splice(0).map(message);
  }

  private flush(turnId: string): void {
    const host = this.requireHost();
    for (const n of this.waiting.splice(0)) host.record({ type: "user_message", turn_id: turnId, message: message(n) });
  }

  private requireHost(): NotificationHost {
    if (!this.host) throw new Error("the notification center is not bound to a session");
    return this.host;
  }
}

function message(n: AgentNotification): UserMessage {
  return { id: n.id, role: "user", origin: "notification", content: [{ type: "text", text: `<notification source="${n.source}">\n${n.text}\n</notification>` }], created_at: n.created_at };
}
