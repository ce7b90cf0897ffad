// Operation correlation (client-protocol.md, Operation context and result): the context a correlated
// command carries and the ClientOperationResultV1 the daemon stores and replays for it.
import { type Static, Type } from "@sinclair/typebox";

export const OperationContextSchema = Type.Object(
  {
    daemon_epoch: Type.String({ minLength: 1, maxLength: 200 }),
    window: Type.String({ minLength: 1, maxLength: 4096, description: "Server-issued operation window token (from GET /sync)." }),
    operation: Type.String({ format: "uuid", pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$", description: "Client-generated UUID." }),
  },
  { additionalProperties: false },
);
export type OperationContext = Static<typeof OperationContextSchema>;

export const OperationStatusSchema = Type.Union([Type.Literal("admitted"), Type.Literal("in_progress"), Type.Literal("completed"), Type.Literal("failed")]);

export const TypedErrorSchema = Type.Object({ code: Type.String(), message: Type.Optional(Type.String()) });

export const ClientOperationResultV1 = Type.Object(
  {
    version: Type.Literal(1),
    daemon_epoch: Type.String(),
    window_id: Type.String({ description: "The window's id (not the token)." }),
    operation: Type.String(),
    status: OperationStatusSchema,
    committed_cursor: Type.Optional(Type.String({ description: "Sync cursor at which the command's effect was committed." })),
    outcome: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "Route-specific outcome (see docs/decisions-daemon.md)." })),
    error: Type.Optional(TypedErrorSchema),
  },
  { title: "ClientOperationResultV1" },
);
export type ClientOperationResult = Static<typeof ClientOperationResultV1>;

export const OperationWindowSchema = Type.Object({
  window: Type.String({ description: "Opaque window token to send in operation_context.window." }),
  window_id: Type.String(),
  expires_at: Type.String({ format: "date-time" }),
});
export type OperationWindow = Static<typeof OperationWindowSchema>;
