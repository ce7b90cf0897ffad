// Storage faults as a user meets them, on a real filesystem: a daemon process whose session lives on a
// small tmpfs this test mounts (root only; skipped elsewhere) keeps running when the disk fills in the
// middle of a streamed answer, ends the turn with a storage error every client sees, refuses prompts with
// 507 storage_full while the disk stays full, loses nothing it had committed, and carries on once space
// returns. A session dir on a read-only mount is refused at start with a message that says so.
import { afterAll, afterEach, expect, test } from "bun:test";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFreshCredential } from "../../src/daemon/credential.ts";
import type { SyncRecord } from "../../src/protocol/sync-record.ts";
import { applyRecords, emptyViewState, type Block } from "../../tui/view-state.ts";
import { until } from "../fakes/fake-clock.ts";

const FIXTURE = join(import.meta.dir, "fixtures", "fake-daemon.ts");
const procs: ReturnType<typeof Bun.spawn>[] = [];
const mounts: string[] = [];

function mountTmpfs(size: string): string | null {
  if (process.getuid?.() !== 0) return null;
  const at = mkdtempSync(join(tmpdir(), "agent-tmpfs-"));
  const r = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", at]);
  if (r.exitCode !== 0) return null;
  mounts.push(at);
  return at;
}

const canMount = (() => {
  const at = mountTmpfs("1m");
  return at !== null;
})();

afterEach(() => {
  for (const p of procs.splice(0)) p.kill(9);
});

afterAll(() => {
  for (const at of mounts) {
    Bun.spawnSync(["umount", "-l", at]);
    rmSync(at, { recursive: true, force: true });
  }
});

async function spawnDaemon(dir: string, cred: string) {
  const proc = Bun.spawn(["bun", FIXTURE, dir, cred, "go"], { stdout: "pipe", stderr: "pipe" });
  procs.push(proc);
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) return { proc, ready: null, stderr: await new Response(proc.stderr).text() };
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { proc, ready: JSON.parse(text.split("\n")[0]!) as { port: number; pid: number }, stderr: "" };
}

/** Fills the filesystem of `dir` until it refuses another byte. */
function fill(path: string): void {
  const fd = openSync(path, "w");
  const block = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC");
    try {
      for (;;) writeSync(fd, block, 0, 512);
    } catch {
      // Full to the last block.
    }
  } finally {
    closeSync(fd);
  }
}

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await Bun.sleep(5);
  }
}

/** Follows /events from a cursor, collecting records, until stopped. */
function follow(url: string, token: string, after: string) {
  const records: Record<string, any>[] = [];
  const abort = new AbortController();
  const done = (async () => {
    const res = await fetch(`${url}/events?after=${encodeURIComponent(after)}`, { headers: { Authorization: `Bearer ${token}` }, signal: abort.signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let at: number;
      while ((at = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const data = block.split("\n").find((l) => l.startsWith("data: "));
        if (block.includes("event: records") && data) records.push(...JSON.parse(data.slice(6)).records);
      }
    }
  })().catch(() => {});
  return { records, stop: () => (abort.abort(), done) };
}

test.skipIf(!canMount)("disk full mid-answer: the daemon stays up, the turn ends with storage_full, prompts get 507, nothing committed is lost, and it carries on once space returns", async () => {
  const mount = mountTmpfs("8m")!;
  const dir = join(mount, "session");
  mkdirSync(dir, { mode: 0o700 });
  const credFile = join(mount, "credential.json");
  const token = writeFreshCredential(credFile);
  const { proc, ready } = await spawnDaemon(dir, credFile);
  expect(ready).not.toBeNull();
  const url = `http://127.0.0.1:${ready!.port}`;
  const auth = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  const snap = await (await fetch(`${url}/sync`, { headers: auth })).json();
  const live = follow(url, token, snap.origin_cursor);

  const first = await fetch(`${url}/prompt`, { method: "POST", headers: auth, body: JSON.stringify({ text: "STREAM a very long answer" }) });
  expect(first.status).toBe(202);
  await until(() => live.records.filter((r) => r.type === "part_delta").length >= 5, "the answer streaming");

  fill(join(mount, "filler"));
  // The WAL may first fill blocks it already holds: allow a few seconds for the write that needs a new one.
  await waitFor(() => live.records.some((r) => r.type === "turn_completed"), 15_000, "the turn to end");
  const ended = live.records.find((r) => r.type === "turn_completed")!;
  expect(ended.stop_reason).toBe("error");
  expect(ended.error.code).toBe("storage_full");
  expect(ended.error.message).toContain("is full");

  // Still up and answering; a prompt is refused with the storage error while the disk is full.
  expect(proc.exitCode).toBeNull();
  expect((await fetch(`${url}/health`, { headers: auth })).status).toBe(200);
  const refused = await fetch(`${url}/prompt`, { method: "POST", headers: auth, body: JSON.stringify({ text: "hello" }) });
  expect(refused.status).toBe(507);
  const body = await refused.json();
  expect(body.code).toBe("storage_full");
  expect(body.message).toContain("free some space");

  // Space returns: the next prompt runs to its end.
  rmSync(join(mount, "filler"));
  const again = await fetch(`${url}/prompt`, { method: "POST", headers: auth, body: JSON.stringify({ text: "hello again" }) });
  expect(again.status).toBe(202);
  await until(() => live.records.some((r) => r.type === "turn_completed" && r.stop_reason === "end_turn"), "the next turn to complete");
  await live.stop();

  // Nothing committed was lost: a replay from the origin gives every record the live stream delivered.
  const replay = follow(url, token, snap.origin_cursor);
  await until(() => replay.records.length >= live.records.length, "the replay");
  await replay.stop();
  expect(replay.records.slice(0, live.records.length)).toEqual(live.records);
  const seqs = replay.records.map((r) => Number(r.seq));
  expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
  const text = replay.records.filter((r) => r.type === "part_completed").map((r) => r.part.text);
  expect(text).toContain("echo: hello again");

  // The conversation view draws the turn's end with the storage error.
  const view = emptyViewState();
  applyRecords(view, replay.records as SyncRecord[]);
  const ends = view.blocks.filter((b) => b.kind === "turn_end") as Extract<Block, { kind: "turn_end" }>[];
  expect(ends[0]!.stopReason).toBe("error");
  expect(ends[0]!.error).toMatch(/^storage_full: the disk holding the session \(.*\) is full/);

  const log = readFileSync(join(dir, "daemon.log"), "utf8");
  expect(log).toMatch(/ error storage fault \(SQLITE_FULL\): the disk holding the session/);
  expect(log).toContain("storage recovered");
  expect(proc.exitCode).toBeNull();
}, 45_000);

test.skipIf(!canMount)("a session directory on a read-only mount: the daemon refuses to start and says why", async () => {
  const mount = mountTmpfs("2m")!;
  const dir = join(mount, "session");
  mkdirSync(dir, { mode: 0o700 });
  const credHome = mkdtempSync(join(tmpdir(), "agent-cred-"));
  const credFile = join(credHome, "credential.json");
  writeFreshCredential(credFile);
  expect(Bun.spawnSync(["mount", "-o", "remount,ro", mount]).exitCode).toBe(0);
  const { proc, ready, stderr } = await spawnDaemon(dir, credFile);
  expect(ready).toBeNull();
  expect(await proc.exited).toBe(1);
  expect(stderr).toContain(`the session directory ${dir} is read-only (EROFS)`);
  expect(stderr).toContain("make it writable");
});
