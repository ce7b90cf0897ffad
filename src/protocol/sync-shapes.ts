// The body shapes of the daemon routes (client-protocol.md, Body shapes with fixed field names, plus the
// names DESIGN.md and docs/decisions-daemon.md fix where the spec says "not shown").
import { type Static, Type } from "@sinclair/typebox";
import { InterrogativeSchema, QueuedInputSchema } from "./conversation-schema.ts";
import { PlanProgressSchema } from "./plan.ts";
import { OperationContextSchema, OperationWindowSchema, ClientOperationResultV1 } from "./operation.ts";

const Counter = (description: string) => Type.String({ pattern: "^[0-9]+$", description });

export const EpochRevisionRecord = Type.Object({ version: Type.Literal(1), daemon_epoch: Type.String(), catalog_revision: Counter("opaque counter") });

export const SyncStatusRecord = Type.Object({
  version: Type.Literal(1),
  daemon_epoch: Type.String(),
  cursor: Type.String(),
  busy: Type.Boolean(),
  attention: Type.Boolean({ description: "A question awaits the user (an open interrogative)." }),
  history_checkpoint: Type.String({ description: "Empty until a stopped-history checkpoint exists." }),
  history_total_items: Type.Integer({ minimum: 0 }),
  // Optional, so the record stays version 1: clients keep fields they do not know (client-protocol.md, Versioning).
  plan: Type.Optional(PlanProgressSchema),
});
export type SyncStatus = Static<typeof SyncStatusRecord>;

export const TurnStateSchema = Type.Object({
  busy: Type.Boolean(),
  turn_id: Type.Union([Type.String(), Type.Null()]),
  queue: Type.Array(QueuedInputSchema),
  pending_interrogatives: Type.Array(InterrogativeSchema),
});

export const ActionAvailabilitySchema = Type.Object({
  prompt: Type.Boolean(),
  dequeue: Type.Boolean(),
  interrogative_response: Type.Boolean(),
  interrupt: Type.Boolean(),
  history: Type.Boolean(),
});

/** The facet and model the session's next turn runs with: session state (/facet, /model), not catalog state. */
export const ActiveModeSchema = Type.Object({
  facet: Type.String(),
  model: Type.String({ description: "A model name, or `name(level)` when a reasoning level other than the model's default was chosen." }),
  sandbox: Type.Optional(Type.String({ description: "Where shell commands run: `workspace_write, no network`, `read_only, network allowed`, or `off` (docs/permissions.md)." })),
  autonomy: Type.Optional(Type.String({ description: "What runs without a question: `ask`, `accept_edits` or `sandboxed`." })),
});
export type ActiveMode = Static<typeof ActiveModeSchema>;

export const SyncSnapshot = Type.Object({
  version: Type.Literal(1),
  session_id: Type.String(),
  daemon_epoch: Type.String(),
  cursor: Type.String({ description: "Replay GET /events?after=<cursor> from here." }),
  origin_cursor: Type.String({ description: "The cursor before the oldest retained record: replay from it to rebuild everything." }),
  seq: Counter("Position of the newest committed record (the seq of its SyncRecordV1): a follower has caught up once it applied it."),
  catalog_revision: Counter("opaque counter"),
  features: Type.Array(Type.String()),
  session_state: Type.Union([Type.Literal("running"), Type.Literal("stopping"), Type.Literal("stopped")]),
  turn: TurnStateSchema,
  active: Type.Union([ActiveModeSchema, Type.Null()], {
    description: "The active facet and model, known from the start (before any turn); null while no engine runs (a stopped session). facet_changed, model_changed and turn_started records update it.",
  }),
  actions: ActionAvailabilitySchema,
  history_checkpoint: Type.Union([Type.String(), Type.Null()]),
  operation_window: Type.Union([OperationWindowSchema, Type.Null()]),
});
export type SyncSnapshotBody = Static<typeof SyncSnapshot>;

export const PromptBody = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 1_000_000 }),
    images: Type.Optional(Type.Array(Type.Object({ media_type: Type.String({ pattern: "^image/[a-z0-9.+-]+$" }), data_base64: Type.String({ maxLength: 16 * 1024 * 1024 }) }, { additionalProperties: false }), { maxItems: 16 })),
    /** `queue` (default): a prompt sent during a turn waits in the queue; `reject`: 409 turn_in_flight. */
    when_busy: Type.Optional(Type.Union([Type.Literal("queue"), Type.Literal("reject")])),
    operation_context: Type.Optional(OperationContextSchema),
  },
  { additionalProperties: false },
);

export const PromptAcceptance = Type.Object({
  generation: Type.Integer(),
  operation_context: Type.Union([OperationContextSchema, Type.Null()]),
  prompt_id: Type.String(),
  queued: Type.Boolean(),
});

export const CommandBody = Type.Object({ operation_context: Type.Optional(OperationContextSchema) }, { additionalProperties: false });

/** `POST /commands/{name}`: a session command (a client's `/name args...`). */
export const SessionCommandBody = Type.Object(
  {
    args: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 64 })),
    operation_context: Type.Optional(OperationContextSchema),
  },
  { additionalProperties: false },
);

/** A correlated command's response: the route's own body plus the stored operation result (null without a context). */
export const CorrelatedResponse = Type.Object({ operation: Type.Union([ClientOperationResultV1, Type.Null()]) }, { additionalProperties: true });

export const AttachmentChunk = Type.Object({
  artifact_id: Type.String(),
  media_type: Type.String(),
  total_length: Type.Integer(),
  offset: Type.Integer(),
  data_base64: Type.String(),
});

export const StatusRecord = Type.Object({ status: Type.String() });
