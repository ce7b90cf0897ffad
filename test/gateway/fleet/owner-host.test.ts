// Fleet sessions name their owner host (issue 39: the `agent connect` picker's HOST column): the catalog
// and the event stream carry `owner_host` beside `host_online`, null for a row from before hosts were
// recorded, and every row and event is valid FleetEventV1 / FleetCatalogPage (ajv, strict).
import { afterEach, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { FleetCatalogPage, fleetEventJsonSchema } from "../../../src/protocol/fleet-event.ts";
import { type FleetGateway, readEvents, startFleetGateway } from "./helpers.ts";

let f: FleetGateway;
afterEach(async () => {
  await f?.stop();
});

function ajv() {
  const a = new Ajv2020({ strict: true, allErrors: true, strictTuples: false });
  addFormats(a);
  return a;
}

const isBeat = (e: { data: any }) => e.data.type === "heartbeat";

test("catalog rows and session events carry owner_host: this front's, a joined host's (offline), null for a row without one", async () => {
  f = await startFleetGateway({}, { extra: "host_name: front-a\n" });
  await f.addProject("0000aaaa");
  const start = (await f.json("/api/v1/catalog")).body.cursor as string;
  await f.addSession("ses_local", { state: "running", ownerHost: "front-a" });
  // build-2 never connected to any front: no presence, so offline.
  await f.addSession("ses_remote", { state: "stopped", ownerHost: "build-2" });
  await f.addSession("ses_legacy", { state: "stopped", ownerHost: null });

  const page = await f.json("/api/v1/catalog");
  expect(page.status).toBe(200);
  const validPage = ajv().compile(JSON.parse(JSON.stringify(FleetCatalogPage)));
  expect(validPage(page.body), JSON.stringify(validPage.errors)).toBe(true);
  const rows = Object.fromEntries(page.body.sessions.map((s: any) => [s.session_id, s]));
  expect(rows.ses_local).toMatchObject({ owner_host: "front-a", host_online: true });
  expect(rows.ses_remote).toMatchObject({ owner_host: "build-2", host_online: false });
  expect(rows.ses_legacy).toMatchObject({ owner_host: null, host_online: true });

  const validEvent = ajv().compile(fleetEventJsonSchema());
  const res = await f.get(`/api/v1/events?after=${encodeURIComponent(start)}`);
  expect(res.status).toBe(200);
  const events = (await readEvents(res, (list) => list.some(isBeat))).filter((e) => !isBeat(e));
  for (const e of events) expect(validEvent(e.data), JSON.stringify(validEvent.errors)).toBe(true);
  const upserts = events.filter((e) => e.data.type === "session_upserted").map((e) => [e.data.session.session_id, e.data.session.owner_host, e.data.session.host_online]);
  expect(upserts).toEqual([
    ["ses_local", "front-a", true],
    ["ses_remote", "build-2", false],
    ["ses_legacy", null, true],
  ]);
});
