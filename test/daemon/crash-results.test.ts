// After a crash, the prompt whose turn was cut short does not stay `in_progress` forever, nor does a
// prompt queued behind it stay `admitted`: the restarted daemon settles both as failed with
// `daemon_restarted`, journals the change (operation_result records) and answers a replay of the stored
// result with it. (A stop settles what the closed engine never ran the same way, with `session_stopped`.)
import { afterEach, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeFreshCredential } from "../../src/daemon/credential.ts";
import { openSession } from "../../src/daemon/store/index.ts";
import { tempSessionDir } from "./harness.ts";

const FIXTURE = join(import.meta.dir, "fixtures", "fake-daemon.ts");
const procs: ReturnType<typeof Bun.spawn>[] = [];
afterEach(() => {
  for (const p of procs.splice(0)) p.kill(9);
});

async function spawnDaemon(dir: string, cred: string, hold: boolean) {
  const proc = Bun.spawn(["bun", FIXTURE, dir, cred, hold ? "hold" : "go"], { stdout: "pipe", stderr: "pipe" });
  procs.push(proc);
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`daemon exited: ${await new Response(proc.stderr).text()}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { proc, url: `http://127.0.0.1:${(JSON.parse(text.split("\n")[0]!) as { port: number }).port}` };
}

test("kill -9 mid-turn: the running and the queued prompt's results end failed (daemon_restarted), in the journal too", async () => {
  const dir = tempSessionDir();
  mkdirSync(join(dir, ".."), { recursive: true, mode: 0o700 });
  const credFile = join(dir, "..", "credential.json");
  const token = writeFreshCredential(credFile);
  const call = (url: string, path: string, body?: unknown) =>
    fetch(url + path, { method: body === undefined ? "GET" : "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });

  const first = await spawnDaemon(dir, credFile, true);
  const snap = await (await call(first.url, "/sync")).json();
  const ctx = (operation: string) => ({ daemon_epoch: snap.daemon_epoch, window: snap.operation_window.window, operation });
  const running = crypto.randomUUID();
  const queued = crypto.randomUUID();
  expect((await call(first.url, "/prompt", { text: "first", operation_context: ctx(running) })).status).toBe(202);
  expect((await call(first.url, "/prompt", { text: "second", operation_context: ctx(queued) })).status).toBe(202);
  for (let i = 0; i < 200; i++) {
    const s = await (await call(first.url, "/sync")).json();
    if (s.turn.busy && s.turn.queue.length === 1) break;
    await Bun.sleep(20);
  }
  first.proc.kill(9);
  await first.proc.exited;

  const second = await spawnDaemon(dir, credFile, false);
  const after = await (await call(second.url, "/sync")).json();
  const res = await fetch(`${second.url}/events?after=${encodeURIComponent(after.origin_cursor)}`, { headers: { Authorization: `Bearer ${token}` } });
  const reader = res.body!.getReader();
  let text = "";
  while (!text.includes(`"seq":"${after.seq}"`)) text += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  const records = [...text.matchAll(/^data: (.*)$/gm)].flatMap((m) => JSON.parse(m[1]!).records) as Record<string, any>[];
  const last = (op: string) => records.filter((r) => r.type === "operation_result" && r.result.operation === op).at(-1)?.result;
  expect(last(running)).toMatchObject({ status: "failed", error: { code: "daemon_restarted" }, daemon_epoch: snap.daemon_epoch });
  expect(last(queued)).toMatchObject({ status: "failed", error: { code: "daemon_restarted" } });

  // The stored results say so as well (what a retry in the old window is answered from).
  second.proc.kill(9);
  await second.proc.exited;
  const store = openSession(dir);
  try {
    const stored = store.ledger.unsettled();
    expect(stored).toEqual([]);
  } finally {
    store.close();
  }
}, 30_000);

