// The fleet routes (client-protocol.md, Fleet routes): the paged catalog, the event stream and stopped
// history with its attachments. `machine` scope is checked at the edge (auth/route-access.ts); errors use
// the fleet envelope `{"code": ...}`; query strings are parsed strictly before anything else runs.
import { t } from "elysia";
import { elysiaApp } from "../../util/elysia-app.ts";
import { FleetCatalogPage, FleetErrorV1 } from "../../protocol/fleet-event.ts";
import type { GatewayContext } from "../context.ts";
import { authenticate, type GuardDeps } from "../server/auth-guard.ts";
import { UnauthorizedBody } from "../server/core-routes.ts";
import { requestMeta } from "../server/request-meta.ts";
import { FleetError, invalidQuery } from "./fleet-error.ts";
import { parseFleetQuery } from "./query.ts";
import { callHost, relayJson } from "../hosts/routing.ts";
import { type FleetDeps, fleetOf, type FleetService } from "./service.ts";

const tags = ["fleet"];

async function readyFleet(ctx: FleetDeps): Promise<FleetService> {
  const fleet = fleetOf(ctx);
  await fleet.ready;
  return fleet;
}
const errors = { 400: FleetErrorV1, 401: UnauthorizedBody, 403: t.Object({ error: t.String(), message: t.Optional(t.String()) }), 410: FleetErrorV1 };
const json = (text: string) => new Response(text, { headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } });
const param = (name: string, description: string, schema: Record<string, unknown> = { type: "string" }) => ({ name, in: "query", required: false, description, schema });
/** Path ids are checked by shape before any lookup. */
const ID = /^[A-Za-z0-9_-]{1,64}$/;

export function fleetCatalogRoutes(ctx: FleetDeps) {
  fleetOf(ctx); // observation starts with the gateway, not with the first request
  return elysiaApp({ name: "gateway-fleet-catalog" }).get(
    "/api/v1/catalog",
    async ({ request }) => {
      const q = parseFleetQuery(request.url, { snapshot: "token", page: "uint", page_size: "uint" });
      const fleet = await readyFleet(ctx);
      if (q.snapshot === undefined) {
        if (q.page !== undefined && q.page !== 0) throw invalidQuery();
        const size = q.page_size as number | undefined;
        if (size !== undefined && (size < 1 || size > fleet.limits.catalogPageEntries)) throw invalidQuery();
        return json(await fleet.catalog(size));
      }
      if (q.page_size !== undefined) throw invalidQuery();
      return json(fleet.snapshots.page(q.snapshot as string, (q.page as number | undefined) ?? 0));
    },
    {
      response: { 200: FleetCatalogPage, ...errors, 413: FleetErrorV1 },
      detail: {
        summary: "Fleet catalog (paged snapshot)",
        description:
          "Without `snapshot`: captures a new catalog (projects, sessions, the fleet cursor) and returns its first page. With `snapshot` (the token of a catalog response) and `page` (an index from `page.next`): a later page of that same capture. Pages hold at most 200 entries and 1 MiB of JSON. 410 `snapshot_expired` after 10 minutes or eviction: fetch a new catalog.",
        tags,
        parameters: [
          param("snapshot", "snapshot token of an earlier catalog response"),
          param("page", "page index (0-based), from page.next", { type: "integer", minimum: 0 }),
          param("page_size", "entries per page of a new snapshot, 1-200 (default 200)", { type: "integer", minimum: 1, maximum: 200 }),
        ],
      },
    },
  );
}

export function fleetEventRoutes(ctx: FleetDeps & GuardDeps & Pick<GatewayContext, "streams">) {
  return elysiaApp({ name: "gateway-fleet-events" }).get(
    "/api/v1/events",
    async ({ request }) => {
      const q = parseFleetQuery(request.url, { after: "token", expected_epoch: "token" });
      const fleet = await readyFleet(ctx);
      if (q.expected_epoch !== undefined && q.expected_epoch !== fleet.epoch) throw new FleetError("reset_required", "the fleet epoch changed (another gateway database); fetch a new catalog");
      // An EventSource client reconnects with the same URL and the last id it saw: that id wins.
      const lastId = request.headers.get("last-event-id");
      const cursor = lastId || (q.after as string | undefined);
      // What other replicas appended is read first: the replay then reaches the database's newest event.
      await fleet.journal.catchUp();
      const position = cursor === undefined ? fleet.journal.position : await fleet.journal.resolve(cursor);
      const tracked = ctx.streams.track(await authenticate(ctx, request));
      requestMeta(request).keepOpen?.();
      return fleet.openStream(position, tracked).response;
    },
    {
      response: { 200: t.String({ description: "text/event-stream of FleetEventV1 (`agent print fleet-event-schema`); each event's SSE id is its cursor" }), ...errors },
      detail: {
        summary: "Fleet events (SSE)",
        description:
          "FleetEventV1 events after `after` (a cursor from the catalog or an event; `Last-Event-ID` takes precedence), then live changes, and a heartbeat right away and every 15 seconds. 400 `invalid_cursor` for a cursor this gateway did not issue; 410 `cursor_too_old` when the journal no longer holds it; 410 `reset_required` when `expected_epoch` or the cursor belongs to another fleet epoch. A `reset` event ends a stream that cannot continue.",
        tags,
        parameters: [param("after", "fleet cursor"), param("expected_epoch", "the fleet epoch the cursor belongs to")],
      },
    },
  );
}

export function fleetHistoryRoutes(ctx: FleetDeps & Partial<Pick<GatewayContext, "routing">>) {
  const sessionId = (id: string) => {
    if (!ID.test(id)) throw new FleetError("history_unavailable", "no such session in the fleet; refresh the catalog");
    return id;
  };
  /**
   * A stopped session's store is on its owner host: a joined host's history is read there (the host's
   * answer relayed as it is; 503 `host_offline` while it is not connected, 409 for another front replica).
   */
  const onOwner = async (request: Request, id: string, path: string): Promise<Response | null> => {
    const owner = ctx.routing ? await ctx.routing.session(sessionId(id)) : null;
    if (!owner) return null;
    return await relayJson(await callHost(owner, "GET", `/host/v1/sessions/${id}/${path}${new URL(request.url).search}`, { signal: request.signal }));
  };
  return elysiaApp({ name: "gateway-fleet-history" })
    .get(
      "/api/v1/sessions/:id/history",
      async ({ request, params }) => {
        const q = parseFleetQuery(request.url, { checkpoint: "token", page: "token" });
        const relayed = await onOwner(request, params.id, "history");
        if (relayed) return relayed;
        return json(await (await readyFleet(ctx)).history.page(sessionId(params.id), q as { checkpoint?: string; page?: string }));
      },
      {
        response: { 200: t.Object({ version: t.Literal(1), session_id: t.String(), checkpoint: t.String(), total_items: t.Integer(), next_page: t.Union([t.String(), t.Null()]), items: t.Array(t.Any()) }), ...errors, 404: FleetErrorV1, 409: FleetErrorV1, 413: FleetErrorV1, 422: FleetErrorV1 },
        detail: {
          summary: "Stopped-session history",
          description:
            "Public history of a stopped, finalized session, read from its store while its daemon is not running. The first request captures an immutable checkpoint; later requests pass `checkpoint` and the `page` token from `next_page`. 409 `history_requires_stopped` / `history_not_finalized` / `history_source_changed`; 410 `snapshot_expired`; 400 `invalid_checkpoint`; 404 `history_unavailable`; 413 `fleet_capacity_exceeded` when a history does not fit the spool.",
          tags,
          parameters: [param("checkpoint", "checkpoint token of the first response"), param("page", "next_page token")],
        },
      },
    )
    .get(
      "/api/v1/sessions/:id/attachments/:artifact_id",
      async ({ request, params }) => {
        const q = parseFleetQuery(request.url, { checkpoint: "token", offset: "uint", length: "uint" });
        const relayed = await onOwner(request, params.id, `attachments/${encodeURIComponent(params.artifact_id)}`);
        if (relayed) return relayed as unknown as Awaited<ReturnType<FleetService["history"]["attachment"]>>;
        return await (await readyFleet(ctx)).history.attachment(sessionId(params.id), params.artifact_id, q as { checkpoint?: string; offset?: number; length?: number });
      },
      {
        response: { 200: t.Object({ artifact_id: t.String(), media_type: t.String(), total_length: t.Integer(), offset: t.Integer(), data_base64: t.String() }), ...errors, 404: FleetErrorV1, 409: FleetErrorV1, 413: FleetErrorV1 },
        detail: {
          summary: "One chunk of a stopped session's attachment",
          description:
            "Base64 chunk (at most 8 MiB of response) of an attachment the checkpoint advertises; read adjacent ranges until `total_length`. 400 `attachment_range_invalid` (zero length, offset beyond the end, overflowing range), 413 `attachment_too_large`, 404 `attachment_not_found` (not advertised) or `history_unavailable` (advertised but not retrievable).",
          tags,
          parameters: [param("checkpoint", "checkpoint token"), param("offset", "first byte", { type: "integer", minimum: 0 }), param("length", "bytes to read", { type: "integer", minimum: 1 })],
        },
      },
    );
}
