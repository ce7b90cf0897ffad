// kill -9 of a replica in the middle of a fleet event stream (issue 38 item 5): replica A runs as a real
// `agent gateway serve` process, replica B in this process, both on one PostgreSQL database with one
// pepper. The `eventsource` client follows A's stream; A is killed with SIGKILL; changes are made while A
// is dead; the client's reconnection (sent to B, as a load balancer would) carries Last-Event-ID, and
// every change arrives exactly once, in order, including those made while A was dead and after.
import { afterEach, expect } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventSource } from "eventsource";
import { freshPgDatabase, PG_MISSING, pgTest, startPgServer } from "../../helpers/postgres.ts";
import { type FleetGateway, sharedPepper, startFleetGateway } from "../fleet/helpers.ts";

const MAIN = join(import.meta.dir, "..", "..", "..", "src", "cli", "main.ts");
const procs: ReturnType<typeof Bun.spawn>[] = [];
let b: FleetGateway | undefined;
afterEach(async () => {
  for (const p of procs.splice(0)) p.kill(9);
  await b?.stop();
});

const hex = (i: number) => i.toString(16).padStart(8, "0");

// A server of this file's own: the process's shared one carries every earlier test file's connections.
const server = PG_MISSING ? undefined : startPgServer();

/** Waits up to 30 s for `cond`; the failure names what it waited for and what replica A logged. */
async function waitFor(cond: () => boolean, what: string, log: () => string): Promise<void> {
  // By the clock, not by a count of sleeps: a process that has run a hundred test files wakes late.
  const deadline = Date.now() + 30_000;
  while (!cond() && Date.now() < deadline) await Bun.sleep(10);
  if (!cond()) throw new Error(`gave up waiting for ${what}; replica A logged:\n${log().slice(-4000)}`);
}

/** `agent gateway serve` as its own process; resolves to its URL once it listens. */
async function serveProcess(database: string, pepperLines: string): Promise<{ proc: ReturnType<typeof Bun.spawn>; url: string; log: () => string }> {
  const dir = mkdtempSync(join(tmpdir(), "fleet-kill-"));
  const config = join(dir, "gateway.yaml");
  writeFileSync(config, `data_dir: ${join(dir, "data")}\ndatabase:\n  url: ${database}\nhost_name: host-a\nlisten: {address: 127.0.0.1, port: 0}\nauth:\n  password:\n    memory_kib: 8192\n    time_cost: 1\n${pepperLines}`);
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, "xdg"), XDG_CONFIG_HOME: join(dir, "cfg") };
  const proc = Bun.spawn(["bun", MAIN, "gateway", "serve", "--config", config], { env, stdout: "pipe", stderr: "pipe" });
  procs.push(proc);
  const reader = proc.stdout.getReader();
  let out = "";
  while (!/listening on \S+/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`gateway serve exited: ${out}${await new Response(proc.stderr).text()}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  let log = "";
  void (async () => {
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) log += new TextDecoder().decode(chunk);
  })();
  return { proc, url: /listening on (\S+)/.exec(out)![1]!, log: () => log };
}

pgTest("kill -9 of the replica serving a fleet stream: the other replica resumes it from Last-Event-ID, every change once", async () => {
  const database = await freshPgDatabase(server);
  const pepper = sharedPepper();
  b = await startFleetGateway({}, { database, auth: pepper, principal: "fleet-b", extra: "host_name: host-b\n" });
  // B's fake clock starts months before A's real one: the events B journals would be past the journal's age
  // on A, which drops each as it reads it, so a cursor A gave out just before one is already too old (410).
  // Replicas share one time: B's clock is set to now.
  b.gw.clock.advance(Date.now() - b.gw.clock.now());
  const a = await serveProcess(database, pepper);
  const start = (await (await fetch(`${a.url}/api/v1/catalog`, { headers: { Authorization: `Bearer ${b.token}` } })).json()).cursor as string;

  const lastEventIds: (string | null)[] = [];
  const servedBy: string[] = [];
  // What the client went through, named in a failure: every connection, its answer, every error.
  const trace: string[] = [];
  let aDead = false;
  let reconnect!: () => void;
  const mayReconnect = new Promise<void>((resolve) => (reconnect = resolve));
  const es = new EventSource(`${a.url}/api/v1/events?after=${encodeURIComponent(start)}`, {
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers as HeadersInit);
      lastEventIds.push(headers.get("last-event-id"));
      headers.set("Authorization", `Bearer ${b!.token}`);
      // The load balancer: A while it lives (a stream that ended early reconnects to A, as a balancer
      // would send it), then B, once the changes made while A was dead are in the database.
      let url = String(input);
      if (aDead) {
        await mayReconnect;
        url = url.replace(a.url, b!.gw.url);
      }
      servedBy.push(new URL(url).origin);
      const response = await fetch(url, { ...init, headers });
      trace.push(`connect ${new URL(url).origin} last-event-id=${headers.get("last-event-id")} -> ${response.status}`);
      return response;
    },
  });
  es.onerror = (e) => void trace.push(`error ${(e as { code?: number }).code ?? ""} ${(e as { message?: string }).message ?? ""}`);
  const seen: { id: string; project: string }[] = [];
  es.onmessage = (e) => {
    const data = JSON.parse(e.data);
    if (data.type === "project_upserted") seen.push({ id: e.lastEventId, project: data.project.project_id });
  };
  const wait = (cond: () => boolean, what: string) => waitFor(cond, what, () => `client: ${trace.join("; ")}\nseen: ${seen.map((e) => e.project).join(",")}\n${a.log()}`);
  let beforeKill = 0;
  try {
    // Written on B, journaled in the database, sent by A (woken by NOTIFY).
    for (let i = 0; i < 3; i++) await b.addProject(hex(i));
    await wait(() => seen.length >= 3, "three events through A");

    beforeKill = lastEventIds.length;
    aDead = true;
    a.proc.kill(9);
    expect(await a.proc.exited).not.toBe(0);
    await wait(() => lastEventIds.length > beforeKill, "the client to notice A is gone and reconnect");
    for (let i = 3; i < 6; i++) await b.addProject(hex(i));
    reconnect();
    await wait(() => seen.length >= 6, "the changes made while A was dead, through B");
    await b.addProject(hex(6));
    await wait(() => seen.length >= 7, "a live change through B");
    // Whatever else might come (a duplicate) comes before the next heartbeat's frame.
    const beat = new Promise<void>((resolve) => es.addEventListener("message", (e) => JSON.parse(e.data).type === "heartbeat" && resolve()));
    b.fleet.heartbeat();
    await beat;
  } finally {
    es.close();
  }
  // A stream that ended while A lived reconnected to A with its Last-Event-ID: not what this test is about,
  // but named, since it should not happen.
  if (beforeKill !== 1) console.warn(`fleet-kill: A's stream was reconnected before the kill: ${trace.join("; ")}`);
  const aOrigin = new URL(a.url).origin;
  expect(servedBy).toEqual([...Array<string>(beforeKill).fill(aOrigin), new URL(b.gw.url).origin]);
  expect(lastEventIds[0]).toBeNull();
  // The reconnection to B carries the id of the last event A delivered.
  expect(lastEventIds[beforeKill]).toBe(seen[2]!.id);
  expect(seen.map((e) => e.project)).toEqual(Array.from({ length: 7 }, (_, i) => hex(i)));
  expect(new Set(seen.map((e) => e.id)).size).toBe(7);
}, 60_000);
