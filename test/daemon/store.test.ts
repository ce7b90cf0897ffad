// The session store: sessions/<id>/ under the data root, durable ordered records, the conversation
// folded back from them after a reopen, corruption surfaced, the ledger bounds.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EngineEvent } from "../../src/agent/events.ts";
import { createSession, listSessions, openSession, sessionDirOf, StoreCorruptError, STORE_FILE } from "../../src/daemon/store/index.ts";

const usage = { input_tokens: 1, output_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };

export function turnEvents(turn: string, text: string, reply: string): EngineEvent[] {
  return [
    { type: "turn_started", turn_id: turn, model: "m", facet: "default" },
    { type: "user_message", turn_id: turn, message: { id: `msg_u${turn}`, role: "user", origin: "prompt", content: [{ type: "text", text }], created_at: 1 } },
    { type: "assistant_message_started", turn_id: turn, message_id: `msg_a${turn}`, model: "m", created_at: 2 },
    { type: "part_started", message_id: `msg_a${turn}`, part_id: `prt_${turn}`, kind: "text" },
    { type: "part_delta", message_id: `msg_a${turn}`, part_id: `prt_${turn}`, delta: reply },
    { type: "part_completed", message_id: `msg_a${turn}`, part: { id: `prt_${turn}`, type: "text", text: reply } },
    { type: "assistant_message_completed", message_id: `msg_a${turn}`, usage, stop_reason: "end_turn" },
    { type: "turn_completed", turn_id: turn, stop_reason: "end_turn", usage },
  ];
}

function root(): string {
  return mkdtempSync(join(tmpdir(), "agent-store-"));
}

describe("session store", () => {
  test("creates sessions/<id>/ (0700, db 0600) and lists it", () => {
    const dataRoot = root();
    const store = createSession({ dataRoot, project: "/work/p", title: "first" });
    expect(store.dir).toBe(sessionDirOf(dataRoot, store.id));
    expect(statSync(store.dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(store.dir, STORE_FILE)).mode & 0o777).toBe(0o600);
    store.close();
    const listed = listSessions(dataRoot);
    expect(listed.map((s) => [s.meta.id, s.meta.project, s.meta.title, s.meta.state])).toEqual([[store.id, "/work/p", "first", "running"]]);
  });

  test("records survive a reopen in order and fold back into the conversation", () => {
    const dataRoot = root();
    const store = createSession({ dataRoot, project: "/p" });
    const first = store.appendEvents(turnEvents("t1", "hello", "hi there"));
    expect(first.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    store.appendEvents(turnEvents("t2", "again", "sure"));
    store.close();

    const again = openSession(sessionDirOf(dataRoot, store.id));
    expect(again.journal.lastSeq()).toBe(16);
    expect(again.events().map((e) => e.type)).toEqual([...turnEvents("t1", "", "").map((e) => e.type), ...turnEvents("t2", "", "").map((e) => e.type)]);
    const convo = again.conversation();
    expect(convo.entries.map((e) => e.role)).toEqual(["user", "assistant", "user", "assistant"]);
    const reply = convo.entries[3]!;
    expect(reply.role === "assistant" && reply.content[0]).toEqual({ id: "prt_t2", type: "text", text: "sure" });
    again.close();
  });

  test("daemon records are kept in the journal but are not engine events", () => {
    const store = createSession({ dataRoot: root(), project: "/p" });
    store.appendEvents([{ type: "session_state", state: "stopped" }, ...turnEvents("t1", "a", "b")]);
    expect(store.journal.read(0, 100)).toHaveLength(9);
    expect(store.events()).toHaveLength(8);
    store.close();
  });

  test("a corrupt record is an error naming its position, never an empty history", () => {
    const store = createSession({ dataRoot: root(), project: "/p" });
    store.appendEvents(turnEvents("t1", "a", "b"));
    const raw = new Database(join(store.dir, STORE_FILE));
    raw.run("UPDATE records SET body = '{broken' WHERE seq = 3");
    raw.close();
    expect(() => store.events()).toThrow(StoreCorruptError);
    expect(() => store.events()).toThrow("record 3 is corrupt");
    store.close();
  });

  test("a missing session dir is a clear error", () => {
    expect(() => openSession(join(root(), "nope"))).toThrow("no session in");
    expect(() => sessionDirOf(root(), "../etc")).toThrow("not a session id");
  });

  test("the ledger refuses entries beyond its bounds and frees room when windows expire", () => {
    const store = createSession({ dataRoot: root(), project: "/p", ledgerLimits: { maxEntries: 2, maxBytes: 1 << 20 } });
    const entry = (op: string, expiresAt: number) => ({ windowId: "w", operation: op, route: "prompt", digest: "d", status: "completed" as const, httpStatus: 200, result: "{}", expiresAt });
    expect(store.ledger.hasRoom(100, 0)).toBe(true);
    store.ledger.insert(entry("a", 1000), 0);
    store.ledger.insert(entry("b", 2000), 0);
    expect(store.ledger.hasRoom(100, 10)).toBe(false);
    expect(store.ledger.hasRoom(100, 1000)).toBe(true);
    expect(store.ledger.get("w", "a")).toBeNull();
    expect(store.ledger.get("w", "b")?.status).toBe("completed");
    store.close();
  });
});
