// The exported contracts are real draft 2020-12 documents (ajv compiles them strictly), every engine
// event is a valid record (the engine's events are the records' schemas), and `agent print` emits them.
import { describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { parse as parseYaml } from "yaml";
import { runCli } from "../../src/cli/run.ts";
import { fleetEventJsonSchema } from "../../src/protocol/fleet-event.ts";
import { DAEMON_RECORD_TYPES } from "../../src/protocol/record-types.ts";
import { EngineEventVariants, RecordBodyVariants, syncRecordJsonSchema } from "../../src/protocol/sync-record.ts";
import { captureIo } from "../helpers/io.ts";
import { richTurnEvents } from "../daemon/fake-engine.ts";

function ajv() {
  const a = new Ajv2020({ strict: true, allErrors: true, strictTuples: false });
  addFormats(a);
  return a;
}

const asRecord = (e: object, seq: number) => ({ version: 1, seq: String(seq), at: 1_700_000_000_000, ...e });

describe("SyncRecordV1 schema", () => {
  const validate = ajv().compile(syncRecordJsonSchema());

  test("every event of a rich turn (tools, reasoning, interrogatives, queue, retries) is a valid record", () => {
    const events = richTurnEvents("t1");
    expect(new Set(events.map((e) => e.type)).size).toBeGreaterThanOrEqual(15);
    events.forEach((e, i) => {
      const ok = validate(asRecord(e, i + 1));
      if (!ok) throw new Error(`${e.type}: ${JSON.stringify(validate.errors)}`);
    });
  });

  test("the record types are the engine's events, each once, then the daemon's own records", () => {
    const types = RecordBodyVariants.map((v) => v.properties.type.const);
    expect(new Set(types).size).toBe(types.length);
    expect(types).toEqual([...EngineEventVariants.map((v) => v.properties.type.const), ...DAEMON_RECORD_TYPES]);
  });

  test("daemon records validate; malformed records do not", () => {
    expect(validate(asRecord({ type: "daemon_catalog_changed", catalog_revision: "3" }, 1))).toBe(true);
    expect(validate(asRecord({ type: "session_state", state: "stopped", finalized: true }, 1))).toBe(true);
    expect(validate(asRecord({ type: "turn_started", turn_id: "t" }, 1))).toBe(false);
    expect(validate({ version: 2, seq: "1", at: 1, type: "notice", level: "info", message: "x" })).toBe(false);
    expect(validate(asRecord({ type: "no_such_record" }, 1))).toBe(false);
    expect(validate({ ...asRecord({ type: "notice", level: "info", message: "x" }, 1), seq: 1 })).toBe(false);
  });
});

describe("FleetEventV1 schema", () => {
  test("compiles under ajv 2020 and accepts a heartbeat and a session update", () => {
    const validate = ajv().compile(fleetEventJsonSchema());
    const head = { version: 1, fleet_epoch: "fe_1", cursor: "c", at: "2026-01-01T00:00:00Z" };
    expect(validate({ ...head, type: "heartbeat", interval_seconds: 15 })).toBe(true);
    const summary = { version: 1, daemon_epoch: "ep", cursor: "c", busy: true, attention: false, history_checkpoint: "", history_total_items: 0 };
    const session = { session_id: "ses_1", project_id: "0a1b2c3d", launch_mode: "project_direct", state: "running", daemon_epoch: "ep", updated_at: head.at, summary, observed_at: head.at, stale: false, owner_host: "build-1", host_online: true };
    expect(validate({ ...head, type: "session_upserted", session })).toBe(true);
    expect(validate({ ...head, type: "session_upserted", session: { ...session, state: "sleeping" } })).toBe(false);
    expect(validate({ ...head, type: "session_upserted", session: { ...session, owner_host: null } })).toBe(true);
    expect(validate({ ...head, type: "session_upserted", session: { ...session, owner_host: 7 } })).toBe(false);
  });
});

describe("agent print sync-event-schema | fleet-event-schema", () => {
  for (const [cmd, title] of [["sync-event-schema", "SyncRecordV1"], ["fleet-event-schema", "FleetEventV1"]] as const) {
    for (const format of ["json", "json-pretty", "yaml"]) {
      test(`${cmd} --format ${format} prints a 2020-12 schema ajv compiles`, async () => {
        const io = captureIo({});
        expect(await runCli(["print", cmd, "--format", format], io)).toBe(0);
        const doc = format === "yaml" ? parseYaml(io.stdout) : JSON.parse(io.stdout);
        expect(doc.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
        expect(doc.title).toBe(title);
        expect(() => ajv().compile(doc)).not.toThrow();
        if (format === "json") expect(io.stdout.trim().split("\n")).toHaveLength(1);
      });
    }
  }

  test("an unknown format is a usage error", async () => {
    const io = captureIo({});
    expect(await runCli(["print", "sync-event-schema", "--format", "xml"], io)).toBe(2);
  });
});
