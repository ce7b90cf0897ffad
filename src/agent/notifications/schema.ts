// The wire shape of a notification (records `notification`).
import { Type } from "@sinclair/typebox";

export const NotificationSchema = Type.Object({
  id: Type.String(),
  source: Type.String(),
  text: Type.String(),
  created_at: Type.Number(),
});

export const NotificationDeliverySchema = Type.Union([Type.Literal("drained"), Type.Literal("queued")]);
