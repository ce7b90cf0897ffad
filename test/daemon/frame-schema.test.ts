// A client writer's view of the wire: `agent print sync-event-schema` exports the SSE frames beside the
// record schema, and the frames a real daemon sends on GET /events (records frames, and the reset event
// of a subscriber that fell behind) validate against it under ajv (draft 2020-12, strict).
import { afterEach, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { runCli } from "../../src/cli/run.ts";
import { captureIo } from "../helpers/io.ts";
import { readSse, startHarness, type Harness } from "./harness.ts";

let h: Harness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});

async function exported() {
  const io = captureIo({});
  expect(await runCli(["print", "sync-event-schema", "--format", "json"], io)).toBe(0);
  const doc = JSON.parse(io.stdout);
  const ajv = new Ajv2020({ strict: true, allErrors: true, strictTuples: false });
  addFormats(ajv);
  ajv.addSchema(doc, "sync");
  return { doc, frame: ajv.getSchema("sync#/$defs/RecordsFrameV1")!, reset: ajv.getSchema("sync#/$defs/ResetFrameV1")! };
}

test("the records frames and the reset event a daemon sends validate against the exported frame schemas", async () => {
  const { doc, frame, reset } = await exported();
  expect(doc.title).toBe("SyncRecordV1");
  expect(Object.keys(doc.$defs)).toEqual(["RecordsFrameV1", "ResetFrameV1"]);
  expect(frame({ records: [] })).toBe(false);
  expect(frame({ records: [{ version: 1, seq: "1", at: 1, type: "no_such_record" }] })).toBe(false);

  h = await startHarness();
  const snap = await (await h.get("/sync")).json();
  expect((await h.post("/prompt", { text: "hello" })).status).toBe(202);
  await h.engine().idle();
  const events = await readSse(await h.get(`/events?after=${snap.origin_cursor}`), (evs) => evs.some((e) => e.event === "records" && e.data.includes('"turn_completed"')));
  const frames = events.filter((e) => e.event === "records");
  expect(frames.length).toBeGreaterThan(0);
  for (const f of frames) {
    expect(f.id).toBeTruthy();
    if (!frame(JSON.parse(f.data))) throw new Error(JSON.stringify(frame.errors));
  }

  // A subscriber that falls behind is reset: the event's data is a ResetFrameV1.
  await h.stop();
  h = await startHarness({ limits: { subscriberBufferRecords: 2 } });
  const snap2 = await (await h.get("/sync")).json();
  const res = await h.get(`/events?after=${snap2.cursor}`);
  await Bun.sleep(50);
  await h.post("/prompt", { text: "overflow" });
  await h.engine().idle();
  const resetEvents = await readSse(res, (evs) => evs.some((e) => e.event === "reset"));
  const sent = resetEvents.find((e) => e.event === "reset")!;
  expect(reset(JSON.parse(sent.data))).toBe(true);
});
