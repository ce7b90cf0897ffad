// What a host (the daemon, `agent exec`, tests) sees of a running session. The engine's AgentSession
// implements it; hosts depend on this interface only.
import type { Conversation } from "./conversation.ts";
import type { SessionCommandInfo, SessionCommandResult } from "./commands/types.ts";
import type { EngineEvent, InterrogativeAnswer, QueuedInput } from "./events.ts";

export interface SubmitInput {
  text: string;
  images?: { media_type: string; data_base64: string }[];
}

/** Thrown by `answer` for an id that is not pending: `withdrawn` (its turn was cancelled) or `not_pending`. */
export class InterrogativeError extends Error {
  constructor(
    readonly code: "interrogative_withdrawn" | "interrogative_not_pending",
    message: string,
  ) {
    super(message);
    this.name = "InterrogativeError";
  }
}

export interface EngineSession {
  readonly id: string;
  /** Events are delivered synchronously, in order, to every listener. Returns the unsubscribe function. */
  subscribe(listener: (event: EngineEvent) => void): () => void;
  /** Starts a turn, or queues the input when a turn is running (`queued: true`). `input_id` becomes the id of its user message. */
  submit(input: SubmitInput): { input_id: string; queued: boolean };
  /** Removes and returns the newest queued input, or null when the queue is empty. */
  dequeueNewest(): QueuedInput | null;
  /** Answers a pending interrogative; throws InterrogativeError when it is not pending. */
  answer(interrogativeId: string, answer: InterrogativeAnswer): void;
  /** The session commands a client can offer (`/help`). */
  commands(): SessionCommandInfo[];
  /** Runs a session command (`/name args...`); throws SessionCommandError for unknown, invalid or unavailable. */
  command(name: string, args: readonly string[]): Promise<SessionCommandResult>;
  /** Cancels the running turn (provider stream and tools); the queue is kept. */
  interrupt(): void;
  readonly busy: boolean;
  readonly queue: readonly QueuedInput[];
  readonly conversation: Conversation;
  /** Resolves when no turn runs and the queue is empty. */
  idle(): Promise<void>;
  /** Interrupts, waits for the turn to settle, and releases the session's resources (shell, MCP servers). */
  close(): Promise<void>;
}
