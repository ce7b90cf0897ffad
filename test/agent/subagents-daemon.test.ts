// A subagent in a real session daemon: its permission ask (the standard matcher asks about `write`) shows
// up in GET /sync as the session's pending question naming the subagent, is answered through
// POST /interrogatives/{id}/response like any other, and the journal carries subagent_* records that
// fit the published SyncRecordV1 schema.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { configuredEngine } from "../../src/cli/daemon-run.ts";
import { startDaemon, type RunningDaemon } from "../../src/daemon/serve.ts";
import { SyncRecordV1 } from "../../src/protocol/sync-record.ts";
import { TOKEN, readSse, recordsOf, tempSessionDir } from "../daemon/harness.ts";
import { makeProject } from "./harness.ts";
import { call, fromSubagent, routedConfig, startRoutingFake, task, type RoutingFake } from "./subagents-harness.ts";

let running: RunningDaemon | undefined;
let fake: RoutingFake | undefined;
afterEach(async () => {
  await running?.stop();
  await fake?.stop();
  running = undefined;
  fake = undefined;
});

const headers = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };

describe("subagents in the daemon", () => {
  test("the subagent's question is the session's pending question, answered over HTTP", async () => {
    fake = startRoutingFake((r) => {
      if (fromSubagent(r)) {
        if (r.round === 0) return { turn: { tool_calls: [call("call_w", "write", { path: "notes.txt", content: "written by general\n" })] } };
        return { turn: { text: "REPORT: notes.txt written" } };
      }
      if (r.round === 0) return { turn: { tool_calls: [task("call_t", "general", "write notes.txt")] } };
      return { turn: { text: "The subagent wrote notes.txt." } };
    });
    const p = makeProject(routedConfig(fake));
    const { engineFactory, reload } = configuredEngine(p.env, false, { untrusted: "keep" }); // the project layer is this test's own provider
    running = await startDaemon({ sessionDir: tempSessionDir(), project: p.root, credential: TOKEN, engineFactory, reloadCatalog: reload, limits: { heartbeatMs: 0 } });
    const url = running.url;
    const sync = async () => (await fetch(`${url}/sync`, { headers })).json();
    const origin = (await sync()).origin_cursor;

    expect((await fetch(`${url}/prompt`, { method: "POST", headers, body: JSON.stringify({ text: "delegate the note" }) })).status).toBe(202);
    let snap: any;
    for (let i = 0; i < 200; i++) {
      snap = await sync();
      if (snap.turn.pending_interrogatives.length > 0) break;
      await Bun.sleep(10);
    }
    const [question] = snap.turn.pending_interrogatives;
    expect(question).toMatchObject({ kind: "permission", tool: "write", subagent: { name: "general" } });
    expect(snap.actions.interrogative_response).toBe(true);
    expect(snap.turn.busy).toBe(true);

    const answer = await fetch(`${url}/interrogatives/${question.id}/response`, { method: "POST", headers, body: JSON.stringify({ answer: { decision: "allow_once" } }) });
    expect(answer.status).toBe(200);
    for (let i = 0; i < 200 && (await sync()).turn.busy; i++) await Bun.sleep(10);
    expect(readFileSync(join(p.root, "notes.txt"), "utf8")).toBe("written by general\n");

    const res = await fetch(`${url}/events?after=${encodeURIComponent(origin)}`, { headers });
    const records = recordsOf(await readSse(res, (evs) => recordsOf(evs).some((r) => r.type === "turn_completed")));
    const subagent = records.filter((r) => r.type.startsWith("subagent_"));
    expect(subagent.map((r) => r.type)).toEqual(["subagent_started", "subagent_progress", "subagent_completed"]);
    expect(subagent[0]).toMatchObject({ name: "general", parent_tool_call_id: "call_t", subagent_id: question.subagent.id });
    expect(subagent[2]).toMatchObject({ status: "completed", report: "REPORT: notes.txt written" });
    for (const r of [...subagent, records.find((r) => r.type === "interrogative_opened")!]) expect(Value.Check(SyncRecordV1, r)).toBe(true);
    // The subagent's own messages are not in the journal: the only assistant messages are the parent's two.
    expect(records.filter((r) => r.type === "assistant_message_started")).toHaveLength(2);
    expect(fake.violations).toEqual([]);
  });
});
