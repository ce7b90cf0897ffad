// A notification: something that happened outside the model's own calls that it should know about (a
// tool server connected or dropped, a background job finished). It enters the conversation as a user
// message with origin `notification` and the notification's id.

export interface AgentNotification {
  id: string;
  /** What raised it, e.g. `mcp:github` or `shell`. */
  source: string;
  text: string;
  created_at: number;
}

/** `drained`: folded into the conversation as it arrived; `queued`: it waits for the next turn. */
export type NotificationDelivery = "drained" | "queued";
