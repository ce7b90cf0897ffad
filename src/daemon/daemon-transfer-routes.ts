// The daemon's fork and export routes (the store work is in store/transfer.ts, which the CLI calls too),
// so a client of the daemon or of the gateway in front of it can offer them:
//   POST /session/fork {at?}           -> 201 {session_id}: a new, stopped session beside this one
//   GET  /session/export?format=json   -> the export document; format=markdown -> {markdown}
// Import makes a session, which no session's daemon owns: a host (the CLI, the gateway) calls
// importSession() of store/transfer.ts itself.
import { dirname } from "node:path";
import { t } from "elysia";
import { ProtocolError } from "../protocol/errors.ts";
import { DaemonErrorBody } from "../protocol/daemon-responses.ts";
import { elysiaApp } from "../util/elysia-app.ts";
import type { Daemon } from "./daemon.ts";
import { json } from "./edge.ts";
import { queryOf } from "./query.ts";
import { exportMarkdown, exportSession, forkSession, TransferError } from "./store/transfer.ts";

const E = DaemonErrorBody;
const errors = { 400: E, 401: E, 403: E, 422: E, 500: E };

function protocolError(run: () => unknown): unknown {
  try {
    return run();
  } catch (error) {
    if (error instanceof TransferError) throw new ProtocolError("invalid_command", 422, error.message);
    throw error;
  }
}

const ExportBody = t.Object(
  {
    format: t.Literal("agent-session"),
    version: t.Literal(1),
    session: t.Object({ id: t.String(), project: t.String(), title: t.Union([t.String(), t.Null()]), created_at: t.String() }),
    events: t.Array(t.Object({ type: t.String() }, { additionalProperties: true }), { description: "The session's engine events, each a SyncRecordV1 body (agent print sync-event-schema)" }),
  },
  { description: "What 'agent sessions import' reads" },
);

export function transferRoutes(daemon: Daemon) {
  return elysiaApp()
    .post(
      "/session/fork",
      ({ body }) =>
        protocolError(() => {
          const fork = forkSession(daemon.store, dirname(daemon.store.dir), body?.at);
          const id = fork.id;
          fork.close();
          return json(201, { session_id: id });
        }),
      {
        body: t.Optional(t.Object({ at: t.Optional(t.String({ description: "Keep the history up to this prompt: its number (1 = first) or its message id" })) })),
        response: { 201: t.Object({ session_id: t.String() }), ...errors },
        detail: { summary: "Copies this session's history (up to a prompt) into a new stopped session beside it" },
      },
    )
    .get(
      "/session/export",
      ({ request }) => {
        const format = queryOf(request).format ?? "json";
        if (format !== "json" && format !== "markdown") throw new ProtocolError("bad_request", 400, `format must be json or markdown, not '${String(format)}'`);
        const doc = exportSession(daemon.store);
        return format === "markdown" ? { markdown: exportMarkdown(doc) } : doc;
      },
      {
        response: { 200: t.Union([ExportBody, t.Object({ markdown: t.String() })]), ...errors },
        detail: {
          summary: "This session's history as an export document (json) or a Markdown transcript",
          parameters: [{ name: "format", in: "query", required: false, description: "json (default) or markdown", schema: { type: "string" } }],
        },
      },
    );
}
