// The daemon's routes (client-protocol.md, Daemon routes; paths the spec leaves open are fixed in
// docs/decisions-daemon.md). The edge has already checked the token, the Host and the query string.
// Each route declares its request and response schemas: they validate, and make the daemon's OpenAPI
// document (`agent print daemon-openapi`, src/daemon/openapi.ts).
import { t } from "elysia";
import { elysiaApp } from "../util/elysia-app.ts";
import { InterrogativeAnswerSchema } from "../protocol/conversation-schema.ts";
import {
  CatalogPublicationBody,
  CommandListBody,
  DaemonErrorBody,
  DequeueResponse,
  FeedbackCatalogBody,
  HealthBody,
  HistoryPageBody,
  InterrogativeResponseBody,
  PromptResponse,
  SessionCommandResponse,
} from "../protocol/daemon-responses.ts";
import { ProtocolError } from "../protocol/errors.ts";
import { AttachmentChunk, CommandBody, EpochRevisionRecord, PromptBody, SessionCommandBody, StatusRecord, SyncSnapshot, SyncStatusRecord } from "../protocol/sync-shapes.ts";
import { VERSION } from "../version.ts";
import type { Daemon } from "./daemon.ts";
import { errorResponse, json, type DaemonLogger } from "./edge.ts";
import type { Correlated } from "./operations.ts";
import { queryOf } from "./query.ts";
import { RecordStream } from "./record-stream.ts";
import { transferRoutes } from "./daemon-transfer-routes.ts";
import { schemaChecks, schemaIssues } from "../util/schema-issues.ts";

export interface AppHooks {
  logger: DaemonLogger;
  /** `POST /session/stop` with `exit: true`: the process ends after answering. */
  onExitRequested?: () => void;
  /** Re-reads what the catalog describes (`POST /daemon-state/reload`, SIGHUP). */
  reloadCatalog?: () => void;
  secrets: readonly string[];
}

const respond = (c: Correlated) => json(c.httpStatus, c.body);

// Every route can answer 401 (the token), 403 (the Host) and 500; 400 is a bad query or body.
const E = DaemonErrorBody;
const readErrors = { 400: E, 401: E, 403: E, 500: E };
const historyErrors = { ...readErrors, 404: E, 409: E, 410: E, 413: E };
// A correlated command's stored result (a failure included) is replayed with its status and `operation`.
const commandErrors = { ...readErrors, 404: E, 409: E, 410: E, 413: E, 422: E, 429: E, 503: E, 507: E };
const doc = (summary: string, description?: string, parameters?: { name: string; description: string; type?: "string" | "integer" }[]) => ({
  summary,
  ...(description ? { description } : {}),
  ...(parameters ? { parameters: parameters.map((p) => ({ name: p.name, in: "query", required: false, description: p.description, schema: { type: p.type ?? "string" } })) } : {}),
});

export function buildDaemonApp(daemon: Daemon, hooks: AppHooks) {
  return elysiaApp()
    .onRequest(({ request }) => {
      // Probes (the gateway's observer, launchers' liveness checks) do not keep an idle daemon up.
      const path = new URL(request.url).pathname;
      if (path !== "/health" && path !== "/sync/summary") daemon.touch();
    })
    .onError(({ error, code }) => {
      // An answer that breaks its own response schema is the daemon's fault: a 500, logged, never a 422.
      // The log names the failed checks, never the answer's values (Elysia's message quotes them).
      if (code === "VALIDATION" && (error as { type?: string }).type === "response") {
        return errorResponse(new Error(`a response broke its schema: ${schemaChecks(error)}`), hooks.logger, hooks.secrets);
      }
      if (code === "VALIDATION") return json(422, { code: "validation_failed", error: "validation_failed", errors: schemaIssues(error) });
      if (code === "PARSE") return json(400, { code: "bad_request", error: "bad_request", message: "the request body is not valid JSON" });
      if (code === "NOT_FOUND") return json(404, { code: "not_found", error: "not_found", message: "no such route" });
      // A write refused for lack of space (the ledger, the title): the storage error, and the guard knows.
      if (daemon.storage.failed(error)) {
        const fault = daemon.storage.current ?? { code: "storage_failed", message: "the session's storage refused a write" };
        return errorResponse(new ProtocolError(fault.code, undefined, fault.message), hooks.logger, hooks.secrets);
      }
      return errorResponse(error, hooks.logger, hooks.secrets);
    })
    .get("/health", () => ({ status: "ok" as const, version: VERSION, session_id: daemon.store.id, daemon_epoch: daemon.epoch, serving: daemon.serving }), {
      response: { 200: HealthBody, ...readErrors },
      detail: doc("Liveness and identity (does not keep an idle daemon up)"),
    })
    .get("/sync", () => daemon.snapshot(), { response: { 200: SyncSnapshot, ...readErrors }, detail: doc("The sync snapshot: epoch, cursors, turn state, actions, operation window") })
    .get("/sync/summary", () => daemon.summary(), { response: { 200: SyncStatusRecord, ...readErrors }, detail: doc("The sync status record (does not keep an idle daemon up)") })
    .get(
      "/events",
      ({ request }) => {
        daemon.hub.flush();
        const lastEventId = request.headers.get("last-event-id");
        const after = (lastEventId || queryOf(request).after) as string | undefined;
        // Without a cursor the route carries the legacy event stream (live engine events only).
        if (!after) return new RecordStream(daemon.hub, daemon.cursors, daemon.limits, { kind: "legacy" }).response();
        return new RecordStream(daemon.hub, daemon.cursors, daemon.limits, { kind: "sync", after: daemon.cursors.decode(after) }).response();
      },
      {
        response: { 200: t.String({ description: "text/event-stream: `records` frames (RecordsFrameV1) whose id is the cursor after their last record, and a final `reset` (ResetFrameV1); schemas: `agent print sync-event-schema`" }), ...historyErrors },
        detail: doc("The ordered sync records after a cursor, then live (SSE)", "`Last-Event-ID` takes precedence over `after`. 400/410 for a cursor that is foreign, of another epoch or too old: resync from GET /sync.", [
          { name: "after", description: "A cursor from GET /sync or a frame's id" },
        ]),
      },
    )
    .get("/daemon-state", () => daemon.catalog.publication, { response: { 200: CatalogPublicationBody, ...readErrors }, detail: doc("The daemon catalog: facets, models, subagents, skills, tools, tool servers, extensions") })
    .post(
      "/daemon-state/reload",
      () => {
        hooks.reloadCatalog?.();
        return { version: 1 as const, daemon_epoch: daemon.epoch, catalog_revision: daemon.catalog.revision };
      },
      { response: { 200: EpochRevisionRecord, ...readErrors }, detail: doc("Re-reads what the catalog describes (as SIGHUP does)") },
    )
    .post(
      "/prompt",
      async ({ body }) => {
        daemon.storage.check();
        const { operation_context, ...payload } = body;
        // The digest covers the payload with its defaults applied: a retry that spells out `when_busy:
        // "queue"` or `images: []` (or leaves them out) is the same command.
        const canonical = { text: payload.text, images: payload.images ?? [], when_busy: payload.when_busy ?? "queue" };
        const result = await daemon.ops.run("prompt", operation_context, canonical, async (key) => {
          // The store's writes first: a write refused for lack of space then leaves the prompt unsent.
          if (payload.when_busy === "reject" && daemon.host.busy) throw new ProtocolError("turn_in_flight", undefined, "a turn is running; send the prompt again when it ends, or send it with when_busy: queue");
          daemon.nameAfter(payload.text);
          const generation = daemon.store.nextGeneration();
          const accepted = daemon.host.submit({ text: payload.text, images: payload.images }, key, payload.when_busy === "reject");
          daemon.hub.flush();
          const fields = { prompt_id: accepted.input_id, generation, queued: accepted.queued };
          return {
            httpStatus: 202,
            status: "admitted",
            body: { ...fields, operation_context: operation_context ?? null },
            outcome: fields,
            committedCursor: daemon.cursors.encode(daemon.hub.lastSeq),
          };
        });
        return respond(result);
      },
      { body: PromptBody, response: { 202: PromptResponse, ...commandErrors }, detail: doc("Submits a prompt (correlated); during a turn it is queued unless when_busy is reject") },
    )
    .post(
      "/queue/dequeue-newest",
      async ({ body }) => {
        daemon.storage.check();
        const result = await daemon.ops.run("dequeue-newest", body.operation_context, {}, async () => {
          const input = daemon.host.dequeueNewest();
          daemon.hub.flush();
          return { httpStatus: 200, status: "completed", body: { input }, outcome: { input_id: input?.id ?? null }, committedCursor: daemon.cursors.encode(daemon.hub.lastSeq) };
        });
        return respond(result);
      },
      { body: CommandBody, response: { 200: DequeueResponse, ...commandErrors }, detail: doc("Takes the newest queued input back (correlated)") },
    )
    .post(
      "/interrogatives/:id/response",
      async ({ body, params }) => {
        if (!/^[A-Za-z0-9_-]{1,128}$/.test(params.id)) throw new ProtocolError("not_found", undefined, "no such interrogative");
        daemon.storage.check();
        const { operation_context, answer } = body;
        const result = await daemon.ops.run("interrogative-response", operation_context, { id: params.id, answer }, async () => {
          daemon.host.answer(params.id, answer);
          daemon.hub.flush();
          return { httpStatus: 200, status: "completed", body: { status: "answered" }, outcome: { interrogative_id: params.id }, committedCursor: daemon.cursors.encode(daemon.hub.lastSeq) };
        });
        return respond(result);
      },
      {
        body: t.Object({ answer: InterrogativeAnswerSchema, operation_context: CommandBody.properties.operation_context }, { additionalProperties: false }),
        response: { 200: InterrogativeResponseBody, ...commandErrors },
        detail: doc("Answers an open interrogative (correlated)"),
      },
    )
    .get("/commands", () => ({ commands: daemon.host.commands() }), { response: { 200: CommandListBody, ...readErrors }, detail: doc("The session commands a client offers as /name") })
    .post(
      "/commands/:name",
      async ({ body, params }) => {
        // Tool servers' prompts are `mcp__<server>__<prompt>`: underscores, and the server's case; a custom
        // command in a subfolder is `folder:name`.
        if (!/^[A-Za-z0-9][A-Za-z0-9_:-]{0,127}$/.test(params.name)) throw new ProtocolError("unknown_command", undefined, "a command name is letters, digits, hyphens, underscores and colons");
        daemon.storage.check();
        const args = body.args ?? [];
        const result = await daemon.ops.run("session-command", body.operation_context, { name: params.name, args }, async () => {
          const done = await daemon.host.command(params.name, args);
          daemon.hub.flush();
          return { httpStatus: 200, status: "completed", body: { name: params.name, ...done }, outcome: { name: params.name }, committedCursor: daemon.cursors.encode(daemon.hub.lastSeq) };
        });
        return respond(result);
      },
      { body: SessionCommandBody, response: { 200: SessionCommandResponse, ...commandErrors }, detail: doc("Runs a session command (correlated)") },
    )
    .post(
      "/interrupt",
      () => {
        daemon.host.interrupt();
        return { status: "interrupting" };
      },
      { response: { 200: StatusRecord, ...readErrors }, detail: doc("Interrupts the running turn") },
    )
    .post(
      "/session/stop",
      async ({ body }) => {
        await daemon.stop();
        // Exit once this response has left (the session is already stopped and finalized).
        if (body?.exit) setTimeout(() => hooks.onExitRequested?.(), 200);
        return { status: "stopped" };
      },
      {
        body: t.Optional(t.Object({ exit: t.Optional(t.Boolean()) }, { additionalProperties: false })),
        response: { 200: StatusRecord, ...commandErrors },
        detail: doc("Stops and finalizes the session; with exit the process ends after answering"),
      },
    )
    .get(
      "/history",
      ({ request }) => {
        const q = queryOf(request);
        return daemon.history.page({ checkpoint: q.checkpoint as string | undefined, page: q.page as string | undefined });
      },
      {
        response: { 200: HistoryPageBody, ...historyErrors },
        detail: doc("A page of a stopped session's public history", "The first request captures a checkpoint; later pages name it.", [
          { name: "checkpoint", description: "The checkpoint of an earlier page" },
          { name: "page", description: "The next_page token of an earlier page" },
        ]),
      },
    )
    .get(
      "/history/attachments/:artifact_id",
      ({ request, params }) => {
        const q = queryOf(request);
        return daemon.history.attachment(params.artifact_id, { checkpoint: q.checkpoint as string | undefined, offset: q.offset as number | undefined, length: q.length as number | undefined });
      },
      {
        response: { 200: AttachmentChunk, ...historyErrors },
        detail: doc("A base64 chunk of a history attachment", undefined, [
          { name: "checkpoint", description: "The checkpoint of the page that advertised it" },
          { name: "offset", description: "The first byte", type: "integer" },
          { name: "length", description: "Bytes to read (at most one chunk)", type: "integer" },
        ]),
      },
    )
    // Fork and export of this session (import makes a new session: no session's daemon serves it).
    .use(transferRoutes(daemon))
    .get("/feedback/artifacts", () => daemon.feedback.catalog(daemon.now()), { response: { 200: FeedbackCatalogBody, ...readErrors }, detail: doc("Captures a catalog of diagnostic artifacts (scrubbed)") })
    .get(
      "/feedback/artifacts/:id",
      ({ request, params }) => {
        const q = queryOf(request);
        return daemon.feedback.read(params.id, q.version as string | undefined, q.mode as string | undefined);
      },
      {
        response: { 200: t.String({ description: "The artifact's bytes (its media type; application/zstd with mode zstd); X-Agent-Raw-Source-Bytes, X-Agent-Truncated" }), ...historyErrors },
        detail: doc("One artifact as of its catalog", undefined, [
          { name: "version", description: "The version token from GET /feedback/artifacts" },
          { name: "mode", description: "snapshot (default), full or zstd" },
        ]),
      },
    );
}
