// An idle daemon gives memory back (src/platform/idle-trim.ts): the quiet-interval policy on a fake CPU
// clock, and a real `agent daemon` process whose code pages are released after its ready line.
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { trimWhenIdle, type IdleTrim } from "../../src/platform/idle-trim.ts";
import { until } from "../fakes/fake-clock.ts";
import { rssFileKb } from "../helpers/processes.ts";
import { authed, promptAndWait, sandbox, spawnDemoDaemon } from "../telemetry/demo-daemon.ts";

const INTERVAL = 20;
const trims: IdleTrim[] = [];
const procs: { kill(signal?: number): void }[] = [];
afterEach(() => {
  for (const t of trims.splice(0)) t.stop();
  for (const p of procs.splice(0)) p.kill(9);
});

/**
 * A policy on a fake CPU clock: `work(ms)` spends CPU once, `busy(true)` makes every reading of the clock
 * 50 ms later than the one before; each release spends `releaseCost`.
 */
function policy(releaseCost = 0) {
  let cpu = 0;
  let busy = false;
  let releases = 0;
  const trim = trimWhenIdle({
    intervalMs: INTERVAL,
    quietCpuMs: 5,
    cpuMs: () => (busy ? (cpu += 50) : cpu),
    release: async () => {
      releases++;
      cpu += releaseCost;
    },
  });
  trims.push(trim);
  return { trim, work: (ms: number) => void (cpu += ms), busy: (on: boolean) => void (busy = on), releases: () => releases };
}

const intervals = (n: number) => Bun.sleep(INTERVAL * n + INTERVAL / 2);

test("a quiet interval gives memory back once; work, then quiet again, gives it back again", async () => {
  const p = policy();
  await until(() => p.releases() === 1, "the first release");
  await intervals(4);
  expect(p.releases()).toBe(1);
  // A busy spell: no release while it lasts.
  p.busy(true);
  await intervals(5);
  expect(p.releases()).toBe(1);
  p.busy(false);
  await until(() => p.releases() === 2, "the release after work");
  await intervals(4);
  expect(p.releases()).toBe(2);
});

test("the release's own CPU never makes the next interval look busy", async () => {
  const p = policy(500);
  await until(() => p.releases() === 1, "the first release");
  await intervals(6);
  expect(p.releases()).toBe(1);
});

test("releaseNow gives memory back at once, and stop ends the watching", async () => {
  const p = policy();
  await p.trim.releaseNow();
  expect(p.releases()).toBe(1);
  p.trim.stop();
  p.work(100);
  await intervals(3);
  expect(p.releases()).toBe(1);
});

test.skipIf(process.platform !== "linux")("agent daemon gives its startup code pages back after the ready line and works on", async () => {
  const box = sandbox(null);
  const daemon = await spawnDemoDaemon(["bun", join(import.meta.dir, "../../src/cli/main.ts")], box);
  procs.push(daemon.proc);
  // The reference: the same runtime serving HTTP with a WAL SQLite store, nothing released. The daemon
  // loads and runs far more code than it, so only a release brings its file-backed pages below it.
  const script = `import{Database}from"bun:sqlite";const d=new Database(${JSON.stringify(join(box.base, "ref.db"))});d.exec("PRAGMA journal_mode=WAL;create table t(a)");const s=Bun.serve({hostname:"127.0.0.1",port:0,fetch:()=>new Response("ok")});await fetch(s.url);console.log("ready")`;
  const reference = Bun.spawn(["bun", "-e", script], { stdout: "pipe" });
  procs.push(reference);
  await reference.stdout.getReader().read();
  const referenceKb = rssFileKb(reference.pid);
  await until(() => rssFileKb(daemon.proc.pid) < referenceKb * 0.75, "the daemon's file-backed pages below the reference's");
  // Released pages come back as they are needed: the daemon answers and runs a turn.
  expect((await authed(`${daemon.url}/sync`)).status).toBe(200);
  await promptAndWait(daemon.url, "hello after the release");
  const sync = (await (await authed(`${daemon.url}/sync`)).json()) as { turn: { busy: boolean } };
  expect(sync.turn.busy).toBe(false);
});
