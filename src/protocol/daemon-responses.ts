// The response bodies of the daemon's routes (client-protocol.md, Daemon routes): the `response:` schemas of
// src/daemon/app.ts, the daemon OpenAPI document (`agent print daemon-openapi`) and the types of the daemon's
// code and of src/client/daemon-client.ts, all from these definitions.
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { QueuedInputSchema } from "./conversation-schema.ts";
import { ClientOperationResultV1 } from "./operation.ts";
import { CorrelatedResponse, PromptAcceptance } from "./sync-shapes.ts";

/** Every error the daemon answers: `code` (and its alias `error`), a message, and per route extras. */
export const DaemonErrorBody = Type.Object(
  {
    code: Type.String({ description: "The error code (client-protocol.md's table maps it to the HTTP status)." }),
    error: Type.String({ description: "The same code (kept for clients that read `error`)." }),
    message: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), { description: "422 validation_failed: each invalid field (at most 20)." })),
    request_id: Type.Optional(Type.String({ description: "500 internal_error: the id the daemon's log names the failure by." })),
    operation: Type.Optional(Type.Union([ClientOperationResultV1, Type.Null()], { description: "A correlated command's stored operation result (null without a context)." })),
  },
  { title: "DaemonError" },
);

export const HealthBody = Type.Object({
  status: Type.Literal("ok"),
  version: Type.String(),
  session_id: Type.String(),
  daemon_epoch: Type.String(),
  serving: Type.Boolean({ description: "False while the daemon starts (its engine not yet attached) or stops." }),
});

/** GET /daemon-state: one immutable catalog publication (the collections are described in docs/daemon.md). */
export const CatalogPublicationBody = Type.Object({
  version: Type.Literal(1),
  catalog_revision: Type.String({ pattern: "^[0-9]+$", description: "opaque counter" }),
  facets: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  models: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  subagents: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  skills: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  tools: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  mcp_servers: Type.Array(Type.Object({ name: Type.String(), transport: Type.String(), state: Type.String(), tool_count: Type.Integer({ minimum: 0 }), tools: Type.Array(Type.String()) })),
  extensions: Type.Array(Type.Record(Type.String(), Type.Unknown())),
});
export type CatalogPublication = Static<typeof CatalogPublicationBody>;

const correlated = <T extends TSchema>(body: T) => Type.Composite([body, CorrelatedResponse]);

export const PromptResponse = correlated(PromptAcceptance);
export const DequeueResponse = correlated(Type.Object({ input: Type.Union([QueuedInputSchema, Type.Null()], { description: "The input taken off the queue; null when it was empty." }) }));
export const InterrogativeResponseBody = correlated(Type.Object({ status: Type.Literal("answered") }));

const SessionCommandInfoSchema = Type.Object({ name: Type.String(), usage: Type.String(), summary: Type.String() });
export type SessionCommandInfo = Static<typeof SessionCommandInfoSchema>;
export const CommandListBody = Type.Object({ commands: Type.Array(SessionCommandInfoSchema) });

const SessionCommandResultSchema = Type.Object({
  /** One or a few lines for the person who ran the command. */
  message: Type.String(),
  /** Structured detail for clients that render more than the message (tables, state). */
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type SessionCommandResult = Static<typeof SessionCommandResultSchema>;
export const SessionCommandResponse = correlated(Type.Composite([Type.Object({ name: Type.String() }), SessionCommandResultSchema]));

const HistoryItemSchema = Type.Object({
  item_id: Type.String(),
  seq: Type.String(),
  at: Type.Number(),
  /** `context`: a compaction (its summary) or a /clear, where the model's context restarted. */
  kind: Type.Union([
    Type.Literal("user_message"),
    Type.Literal("assistant_part"),
    Type.Literal("tool_result"),
    Type.Literal("turn_completed"),
    Type.Literal("interrogative"),
    Type.Literal("notice"),
    Type.Literal("context"),
  ]),
  turn_id: Type.Union([Type.String(), Type.Null()]),
  /** Facet and model in effect when the record was written; `historical_unknown` when it cannot be established. */
  attribution: Type.Object({ facet: Type.String(), model: Type.String() }),
  /** `historical_secret_coverage_unknown` for records projected from a store of an older layout; else `captured`. */
  secret_coverage: Type.Union([Type.Literal("captured"), Type.Literal("historical_secret_coverage_unknown")]),
  payload: Type.Record(Type.String(), Type.Unknown()),
});
export type HistoryItem = Static<typeof HistoryItemSchema>;

export const HistoryPageBody = Type.Object({
  version: Type.Literal(1),
  session_id: Type.String(),
  checkpoint: Type.String({ description: "The checkpoint token: pass it with every later page and attachment read." }),
  total_items: Type.Integer({ minimum: 0 }),
  items: Type.Array(HistoryItemSchema),
  next_page: Type.Union([Type.String(), Type.Null()]),
});
export type HistoryPage = Static<typeof HistoryPageBody>;

export const FeedbackCatalogBody = Type.Object({
  version: Type.Literal(1),
  artifacts: Type.Array(
    Type.Object({
      id: Type.String(),
      title: Type.String(),
      media_type: Type.String(),
      size: Type.Integer({ minimum: 0 }),
      version: Type.String({ description: "The version token to read the artifact as of this catalog." }),
    }),
  ),
});
