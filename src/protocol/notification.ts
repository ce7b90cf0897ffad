// A notification (records `notification`): something that happened outside the model's own calls that it
// should know about (a tool server connected or dropped, a background job finished). It enters the
// conversation as a user message with origin `notification` and the notification's id. The schema is the
// one definition; the engine uses its Static type.
import { type Static, Type } from "@sinclair/typebox";

export const NotificationSchema = Type.Object({
  id: Type.String(),
  /** What raised it, e.g. `mcp:github` or `shell`. */
  source: Type.String(),
  text: Type.String(),
  created_at: Type.Number(),
});
export type AgentNotification = Static<typeof NotificationSchema>;

/** `drained`: folded into the conversation as it arrived; `queued`: it waits for the next turn. */
export const NotificationDeliverySchema = Type.Union([Type.Literal("drained"), Type.Literal("queued")]);
export type NotificationDelivery = Static<typeof NotificationDeliverySchema>;
