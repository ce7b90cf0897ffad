// kill -9 the daemon mid-turn and start it again on the same session dir: a new epoch, the old cursor
// rejected as another epoch's, every committed record still there (the open turn closed as interrupted),
// and a following client recovers by itself and goes on. Real processes, real HTTP.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DaemonClient } from "../../src/client/daemon-client.ts";
import { writeFreshCredential } from "../../src/daemon/credential.ts";
import type { SyncRecord } from "../../src/protocol/sync-record.ts";
import { until } from "../fakes/fake-clock.ts";
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
  return { proc, ready: JSON.parse(text.split("\n")[0]!) as { port: number; pid: number; epoch: string } };
}

test("kill -9 mid-turn, restart: new epoch, old cursor 409, nothing lost, the client recovers", async () => {
  const dir = tempSessionDir();
  mkdirSync(join(dir, ".."), { recursive: true, mode: 0o700 });
  const credFile = join(dir, "..", "credential.json");
  const token = writeFreshCredential(credFile);
  const first = await spawnDaemon(dir, credFile, true);
  expect(JSON.parse(readFileSync(join(dir, "daemon.json"), "utf8"))).toEqual(first.ready);

  const url = () => `http://127.0.0.1:${JSON.parse(readFileSync(join(dir, "daemon.json"), "utf8")).port}`;
  const client = new DaemonClient({ url, token, retryDelayMs: 20 });
  let view: SyncRecord[] = [];
  let rebuilds = 0;
  const follow = new AbortController();
  const following = client.follow(
    {
      onSnapshot: (_snap, rebuild) => {
        if (rebuild) {
          rebuilds++;
          view = [];
        }
      },
      onRecords: (records) => void view.push(...records),
    },
    follow.signal,
  );

  const accepted = await client.prompt("first");
  expect(accepted.operation?.status).toMatch(/admitted|in_progress/);
  await until(() => view.some((r) => r.type === "part_delta"), "the streamed start of the turn");
  const oldCursor = client.appliedCursor!;
  const before = view.map((r) => r.seq);

  first.proc.kill(9);
  await first.proc.exited;
  const second = await spawnDaemon(dir, credFile, false);
  expect(second.ready.epoch).not.toBe(first.ready.epoch);

  const stale = await fetch(`${url()}/events?after=${encodeURIComponent(oldCursor)}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(stale.status).toBe(409);
  expect((await stale.json()).code).toBe("epoch_mismatch");

  // The client notices the lost stream, sees the new epoch and rebuilds from the origin.
  await until(() => client.epoch === second.ready.epoch && view.some((r) => r.type === "turn_completed"), "the client to resync");
  expect(rebuilds).toBe(2);
  expect(view.slice(0, before.length).map((r) => r.seq)).toEqual(before);
  const closed = view.find((r) => r.type === "turn_completed") as Record<string, any>;
  expect(closed.stop_reason).toBe("interrupted");
  expect(closed.error?.code).toBe("daemon_restarted");
  expect(view.find((r) => r.type === "user_message")).toMatchObject({ message: { content: [{ type: "text", text: "first" }] } });

  const next = await client.prompt("second");
  expect(next.generation).toBe(2);
  await until(() => view.filter((r) => r.type === "turn_completed").length === 2, "the second turn");
  expect(view.map((r) => Number(r.seq))).toEqual(view.map((_, i) => i + 1));
  follow.abort();
  await following;
}, 30_000);
