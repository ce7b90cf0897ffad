// Restore points below the binary: what a command's snapshot sees and never runs, what counts as
// someone else's change, and how a conversation rewind takes back a compaction made after its prompt.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Checkpoints } from "../../src/agent/checkpoints/recorder.ts";
import { planRestore } from "../../src/agent/checkpoints/restore.ts";
import { rewind, undo } from "../../src/agent/checkpoints/rewind.ts";
import { SessionCommandError } from "../../src/agent/commands/types.ts";
import type { AgentSession } from "../../src/agent/session.ts";
import { applyEvent, type EngineEvent } from "../../src/agent/events.ts";
import type { Conversation } from "../../src/agent/conversation.ts";
import { contextEntries } from "../../src/agent/compaction/context.ts";
import type { Tool, ToolContext } from "../../src/tools/tool.ts";

const git = (cwd: string, ...args: string[]) => {
  const r = Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.toString();
};

function repo(env: Record<string, string | undefined> = process.env) {
  const base = mkdtempSync(join(tmpdir(), "agent-checkpoints-"));
  const root = join(base, "proj");
  mkdirSync(root);
  git(root, "init", "--quiet");
  const events: EngineEvent[] = [];
  const cp = new Checkpoints(join(base, "session", "checkpoints"), root, env);
  cp.bind((e) => {
    events.push(e);
    cp.apply(e);
  });
  const ctx = { cwd: root, projectRoot: root } as ToolContext;
  let turns = 0;
  const startTurn = () => {
    const turn = `turn_${++turns}`;
    const prompt = `msg_${turns}`;
    cp.apply({ type: "turn_started", turn_id: turn, model: "m", facet: "execute" });
    cp.apply({ type: "user_message", turn_id: turn, message: { id: prompt, role: "user", origin: "prompt", content: [{ type: "text", text: "go" }], created_at: 0 } });
    return {
      end: () => {
        cp.settle(turn);
        cp.apply({ type: "turn_completed", turn_id: turn, stop_reason: "end_turn", usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 } });
      },
    };
  };
  return { base, root, events, cp, ctx, startTurn, file: (name: string) => join(root, name) };
}

const shell = { name: "shell" } as Tool;
const write = { name: "write" } as Tool;
const saved = (events: EngineEvent[]) => events.flatMap((e) => (e.type === "checkpoint_saved" ? e.files : []));

describe("a command's changes, seen by the project snapshot", () => {
  test("changed, created and deleted files are saved with their content from before; ignored files are not seen", async () => {
    const r = repo();
    writeFileSync(r.file(".gitignore"), "ignored.txt\n");
    writeFileSync(r.file("kept.txt"), "K0\n");
    writeFileSync(r.file("gone.txt"), "G0\n");
    writeFileSync(r.file("ignored.txt"), "I0\n");
    r.startTurn();
    const guard = await r.cp.beforeCall({ call_id: "c1", name: "shell", arguments: { command: "..." } }, shell, r.ctx);
    expect(guard).not.toBeNull();
    writeFileSync(r.file("kept.txt"), "K1\n");
    writeFileSync(r.file("new.txt"), "N1\n");
    rmSync(r.file("gone.txt"));
    writeFileSync(r.file("ignored.txt"), "I1\n");
    await guard!.after();
    const files = new Map(saved(r.events).map((f) => [f.path, f.before]));
    expect([...files.keys()].sort()).toEqual([r.file("gone.txt"), r.file("kept.txt"), r.file("new.txt")]);
    expect(files.get(r.file("new.txt"))).toBeNull();
    expect(r.cp.blobs.get(files.get(r.file("kept.txt"))!).toString()).toBe("K0\n");
    expect(r.cp.blobs.get(files.get(r.file("gone.txt"))!).toString()).toBe("G0\n");
  });

  test("the snapshot runs nothing the project's or the user's git config names (a clean filter), and committed content is not copied", async () => {
    const home = mkdtempSync(join(tmpdir(), "agent-checkpoints-home-"));
    const marker = join(home, "filter-ran");
    writeFileSync(join(home, ".gitconfig"), `[filter "evil"]\n\tclean = touch ${marker}; cat\n`);
    const r = repo({ ...process.env, HOME: home });
    writeFileSync(r.file(".gitattributes"), "*.txt filter=evil\n");
    writeFileSync(r.file("big.txt"), "committed content\n".repeat(1000));
    git(r.root, "add", "big.txt");
    git(r.root, "commit", "--quiet", "-m", "one");
    const blob = git(r.root, "rev-parse", "HEAD:big.txt").trim();
    git(r.root, "config", "filter.evil.clean", `touch ${marker}; cat`);
    rmSync(marker, { force: true });
    r.startTurn();
    const guard = await r.cp.beforeCall({ call_id: "c1", name: "shell", arguments: {} }, shell, r.ctx);
    writeFileSync(r.file("other.txt"), "x\n");
    await guard!.after();
    expect(existsSync(marker)).toBe(false);
    expect(saved(r.events).map((f) => f.path)).toEqual([r.file("other.txt")]);
    const shadowObjects = join(r.base, "session", "checkpoints", "shadow", ".git", "objects");
    expect(existsSync(join(shadowObjects, blob.slice(0, 2), blob.slice(2)))).toBe(false);
  });
});

describe("a file tool's files", () => {
  test("are saved before the call from its arguments (a patch's every file); a path outside the project is not copied", async () => {
    const r = repo();
    writeFileSync(r.file("a.txt"), "A0\n");
    const outside = join(r.base, "secret.txt");
    writeFileSync(outside, "not the project's\n");
    r.startTurn();
    await r.cp.beforeCall({ call_id: "c1", name: "edit", arguments: { patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n-A0\n+A1\n*** Add File: new.txt\n+N\n*** End Patch\n" } }, { name: "edit" } as Tool, r.ctx);
    await r.cp.beforeCall({ call_id: "c2", name: "write", arguments: { path: outside, content: "x" } }, write, r.ctx);
    await r.cp.beforeCall({ call_id: "c3", name: "write", arguments: { path: "a.txt", content: "again" } }, write, r.ctx);
    const files = saved(r.events);
    expect(files.map((f) => f.path)).toEqual([r.file("a.txt"), r.file("new.txt")]);
    expect(r.cp.blobs.get(files[0]!.before!).toString()).toBe("A0\n");
    expect(files[1]!.before).toBeNull();
  });
});

describe("a restore point that cannot be saved", () => {
  test("the call still runs, and a warning says its files have no restore point", async () => {
    const base = mkdtempSync(join(tmpdir(), "agent-checkpoints-full-"));
    const root = join(base, "proj");
    mkdirSync(root);
    writeFileSync(join(root, "a.txt"), "A0\n");
    // A file where the store's directory should be: every write into it fails.
    writeFileSync(join(base, "checkpoints"), "");
    const events: EngineEvent[] = [];
    const cp = new Checkpoints(join(base, "checkpoints"), root, process.env);
    cp.bind((e) => events.push(e));
    cp.apply({ type: "turn_started", turn_id: "t1", model: "m", facet: "execute" });
    cp.apply({ type: "user_message", turn_id: "t1", message: { id: "msg_1", role: "user", origin: "prompt", content: [], created_at: 0 } });
    const guard = await cp.beforeCall({ call_id: "c1", name: "write", arguments: { path: "a.txt" } }, write, { cwd: root, projectRoot: root } as ToolContext);
    expect(guard).toBeNull();
    expect(events.map((e) => e.type)).toEqual(["notice"]);
    expect((events[0] as Extract<EngineEvent, { type: "notice" }>).message).toContain("no restore point for the write call");
  });
});

describe("what counts as someone else's change", () => {
  test("a file the user changed between two turns conflicts; one only the agent changed does not", async () => {
    const r = repo();
    writeFileSync(r.file("a.txt"), "A0\n");
    writeFileSync(r.file("b.txt"), "B0\n");
    let t = r.startTurn();
    await r.cp.beforeCall({ call_id: "c1", name: "write", arguments: { path: "a.txt" } }, write, r.ctx);
    await r.cp.beforeCall({ call_id: "c2", name: "write", arguments: { path: "b.txt" } }, write, r.ctx);
    writeFileSync(r.file("a.txt"), "A1\n");
    writeFileSync(r.file("b.txt"), "B1\n");
    t.end();
    writeFileSync(r.file("b.txt"), "B-user\n");
    t = r.startTurn();
    await r.cp.beforeCall({ call_id: "c3", name: "write", arguments: { path: "b.txt" } }, write, r.ctx);
    await r.cp.beforeCall({ call_id: "c4", name: "write", arguments: { path: "a.txt" } }, write, r.ctx);
    writeFileSync(r.file("a.txt"), "A2\n");
    writeFileSync(r.file("b.txt"), "B2\n");
    t.end();
    const plans = new Map(planRestore(r.cp.liveTurns()).map((p) => [p.path, p]));
    expect(plans.get(r.file("a.txt"))!.conflict).toBeUndefined();
    expect(plans.get(r.file("b.txt"))!.conflict).toBe("changed by someone else between two of the turns");
    // The last turn alone: both files are as the agent left them.
    expect(planRestore(r.cp.liveTurns().slice(1)).every((p) => !p.conflict)).toBe(true);
  });

  test("a turn cut off before it ended (no settled record) is never restored without being told", async () => {
    const r = repo();
    writeFileSync(r.file("a.txt"), "A0\n");
    r.startTurn();
    await r.cp.beforeCall({ call_id: "c1", name: "write", arguments: { path: "a.txt" } }, write, r.ctx);
    writeFileSync(r.file("a.txt"), "A1\n");
    // A restart folds the journal as it was: the turn has no end.
    const again = new Checkpoints(join(r.base, "session", "checkpoints"), r.root, process.env, r.events);
    expect(planRestore(again.liveTurns())[0]!.conflict).toContain("never ended");
  });
});

describe("rewinding the conversation", () => {
  test("a compaction made after the chosen prompt is undone with it; a /clear before it stays", () => {
    const c: Conversation = { entries: [] };
    const user = (id: string, turn: string): EngineEvent => ({ type: "user_message", turn_id: turn, message: { id, role: "user", origin: "prompt", content: [{ type: "text", text: id }], created_at: 0 } });
    applyEvent(c, user("msg_0", "t0"));
    applyEvent(c, { type: "context_cleared", tokens_before: 10 });
    applyEvent(c, user("msg_1", "t1"));
    applyEvent(c, user("msg_2", "t2"));
    applyEvent(c, { type: "context_compacted", turn_id: "t2", summary: "S", kept_from_message_id: "msg_2", tokens_before: 100, tokens_after: 10, model: "m", attempts: 1, usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 } });
    expect(c.context?.summary).toBe("S");
    applyEvent(c, { type: "rewound", action: "rewind", prompt_id: "msg_2", mode: "both", turn_ids: [], restored: [], kept: [] });
    expect(c.entries.map((e) => e.id)).toEqual(["msg_0", "msg_1"]);
    expect(c.context).toMatchObject({ summary: null, index: 1 });
    expect(contextEntries(c).map((e) => e.id)).toEqual(["msg_1"]);
    // Files only: the conversation stays.
    applyEvent(c, { type: "rewound", action: "undo", prompt_id: "msg_1", mode: "code", turn_ids: [], restored: [], kept: [] });
    expect(c.entries).toHaveLength(2);
  });
});

describe("/undo and /rewind on the restore points", () => {
  /** Two turns of a session (prompts msg_1, msg_2), each changing a.txt; a stand-in session that folds what the commands record. */
  async function twoTurns() {
    const r = repo();
    writeFileSync(r.file("a.txt"), "A0\n");
    const conversation: Conversation = { entries: [] };
    const session = { conversation, record: (e: EngineEvent) => (applyEvent(conversation, e), r.events.push(e), r.cp.apply(e)) } as unknown as AgentSession;
    for (const content of ["A1\n", "A2\n"]) {
      const t = r.startTurn();
      const id = `msg_${conversation.entries.length + 1}`;
      applyEvent(conversation, { type: "user_message", turn_id: "t", message: { id, role: "user", origin: "prompt", content: [{ type: "text", text: content.trim() }], created_at: 0 } });
      await r.cp.beforeCall({ call_id: "c", name: "write", arguments: { path: "a.txt" } }, write, r.ctx);
      writeFileSync(r.file("a.txt"), content);
      t.end();
    }
    return { r, session, read: () => readFileSync(r.file("a.txt"), "utf8") };
  }

  test("/undo twice walks back one turn at a time, then says there is nothing left", async () => {
    const { r, session, read } = await twoTurns();
    undo(session, r.cp, null);
    expect(read()).toBe("A1\n");
    undo(session, r.cp, null);
    expect(read()).toBe("A0\n");
    expect(() => undo(session, r.cp, null)).toThrow("no turn has file changes left to undo");
  });

  test("a conflict refuses without a choice and changes nothing; --force overwrites the user's change", async () => {
    const { r, session, read } = await twoTurns();
    writeFileSync(r.file("a.txt"), "mine\n");
    let refused: unknown;
    try {
      rewind(session, r.cp, "1", "code", null);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(SessionCommandError);
    expect((refused as SessionCommandError).code).toBe("checkpoint_conflict");
    expect((refused as SessionCommandError).message).toContain("a.txt (changed since the agent changed it)");
    expect(read()).toBe("mine\n");
    expect(r.events.some((e) => e.type === "rewound")).toBe(false);
    const done = rewind(session, r.cp, "1", "code", "force");
    expect(done.data).toMatchObject({ restored: ["a.txt"], kept: [] });
    expect(read()).toBe("A0\n");
    // Files only: both prompts stay in the conversation, and nothing is left to undo.
    expect(session.conversation.entries).toHaveLength(2);
    expect(r.cp.liveTurns()).toHaveLength(0);
  });
});
