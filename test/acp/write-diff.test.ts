// A write that overwrites a file shows the editor the file's old text in its diff: live (whether or not
// the tool ran before the agent read the disk) and in a replayed history (where the disk is never read).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { RecordTranslator, type Rec } from "../../src/acp/record-updates.ts";
import { startEditor, stopDaemons, world, type Editor } from "./editor.ts";

const OLD = "first line\nsecond line\n";
const NEW = "first line\nchanged line\n";

const w = world({
  script: `responses:\n  - text: "Rewriting it."\n    tool_calls:\n      - { name: write, arguments: { path: notes.txt, content: ${JSON.stringify(NEW)} } }\n  - text: "Done."\n`,
  permissions: "allow:\n  - write(notes.txt)\n",
});
writeFileSync(join(w.project, "notes.txt"), OLD);
const editors: Editor[] = [];
afterAll(async () => {
  for (const e of editors) await e.close();
  stopDaemons(w);
});

/** The diff content of the finished write call. */
function finishedDiff(updates: SessionUpdate[]) {
  const done = updates.find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
  return done?.sessionUpdate === "tool_call_update" ? done.content?.find((c) => c.type === "diff") : undefined;
}

describe("agent acp: a write over an existing file", () => {
  let sessionId = "";

  test("live: the finished call's diff carries the old text", async () => {
    const e = await startEditor(w);
    editors.push(e);
    sessionId = (await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] })).sessionId;
    expect((await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "rewrite notes" }] })).stopReason).toBe("end_turn");
    expect(readFileSync(join(w.project, "notes.txt"), "utf8")).toBe(NEW);
    expect(finishedDiff(e.updates.map((n) => n.update))).toEqual({ type: "diff", path: join(w.project, "notes.txt"), oldText: OLD, newText: NEW });
  });

  test("replayed by session/load: the diff still carries the old text", async () => {
    await editors[0]!.close();
    const e = await startEditor(w);
    editors.push(e);
    await e.ctx.request("session/load", { sessionId, cwd: w.project, mcpServers: [] });
    expect(finishedDiff(e.updates.map((n) => n.update))).toEqual({ type: "diff", path: join(w.project, "notes.txt"), oldText: OLD, newText: NEW });
  });

  test("the tool ran before the call was announced: the disk has the new text, the result has the old", () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-acp-write-"));
    writeFileSync(join(dir, "f.txt"), NEW);
    const t = new RecordTranslator({ cwd: dir });
    const args = { path: "f.txt", content: NEW };
    const announced = t.translate({ type: "part_completed", seq: "1", message_id: "m", part: { type: "tool_call", id: "p1", call_id: "c1", name: "write", arguments: args } } as unknown as Rec, true);
    expect(announced[0]).toMatchObject({ content: [{ type: "diff", oldText: null, newText: NEW }] });
    const done = t.translate({ type: "tool_call_completed", seq: "2", part_id: "p1", result: { call_id: "c1", name: "write", status: "completed", output: "Overwrote `f.txt`.", metadata: { created: false, old_text: OLD } } } as unknown as Rec, true);
    expect(finishedDiff(done)).toEqual({ type: "diff", path: join(dir, "f.txt"), oldText: OLD, newText: NEW });
  });
});
