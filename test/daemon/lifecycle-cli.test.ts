// Sessions that look after themselves (issue 26 §1-2), as a user meets them through the CLI with real
// processes on the offline demo provider: an idle daemon stops its session and exits (the process is gone)
// and `agent continue` brings it back; `sessions stop --all` and `sessions prune`; a session stopped over
// HTTP is continued by a fresh daemon (not the stopped one); exec sessions and failed starts are stopped;
// titles are one line from the first prompt.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processRunning } from "../helpers/processes.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");

interface Box {
  env: Record<string, string>;
  project: string;
  data: string;
}

const boxes: Box[] = [];
afterAll(() => {
  for (const box of boxes) agent(box, ["sessions", "stop", "--all"]);
}, 60_000);

/** A temp HOME/XDG with `globalConfig` as the global config, and a git project. */
function sandbox(globalConfig = ""): Box {
  const base = mkdtempSync(join(tmpdir(), "agent-lifecycle-"));
  const env = { ...process.env, HOME: base, XDG_CONFIG_HOME: join(base, "config"), XDG_DATA_HOME: join(base, "data") } as Record<string, string>;
  mkdirSync(join(base, "config", "agent"), { recursive: true });
  writeFileSync(join(base, "config", "agent", "config.yaml"), globalConfig);
  const project = join(base, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  const box = { env, project, data: join(base, "data", "agent") };
  boxes.push(box);
  return box;
}

function agent(box: Box, args: string[], stdin?: string) {
  const p = Bun.spawnSync(["bun", MAIN, ...args], { cwd: box.project, env: box.env, stdin: stdin === undefined ? "ignore" : Buffer.from(stdin), stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

function listed(box: Box): Record<string, any>[] {
  const r = agent(box, ["sessions", "list", "--json", "--all"]);
  expect(r.code).toBe(0);
  return r.out.trim() === "" ? [] : r.out.trim().split("\n").map((l) => JSON.parse(l));
}

const sessionDir = (box: Box, id: string) => join(box.data, "sessions", id);
const daemonJson = (box: Box, id: string) => JSON.parse(readFileSync(join(sessionDir(box, id), "daemon.json"), "utf8")) as { port: number; pid: number };
const tokenOf = (box: Box, id: string) => (JSON.parse(readFileSync(join(sessionDir(box, id), "credential.json"), "utf8")) as { token: string }).token;

async function until(cond: () => boolean, what: string, ms: number): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await Bun.sleep(100)) if (cond()) return;
  throw new Error(`gave up waiting for ${what}`);
}

function daemonFetch(box: Box, id: string, path: string, init: RequestInit = {}) {
  const { port } = daemonJson(box, id);
  return fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { Authorization: `Bearer ${tokenOf(box, id)}`, "Content-Type": "application/json", ...(init.headers ?? {}) } });
}

describe("idle exit", () => {
  test("an idle daemon stops its session and exits; agent continue starts it again; a client attached keeps it up", async () => {
    const box = sandbox("daemon:\n  idle_exit_secs: 1\n");
    const created = agent(box, ["new", "--detach", "--demo", "hello"]);
    expect(created.code).toBe(0);
    const id = created.out.trim();
    const first = daemonJson(box, id).pid;

    await until(() => !processRunning(first), "the idle daemon to exit", 30_000);
    expect(listed(box)[0]).toMatchObject({ id, state: "stopped", daemon_running: false });
    expect(readFileSync(join(sessionDir(box, id), "daemon.log"), "utf8")).toContain("idle for 1 s");

    const continued = agent(box, ["continue", "--detach", "--demo", id]);
    expect(continued.code).toBe(0);
    const second = daemonJson(box, id).pid;
    expect(second).not.toBe(first);
    expect(processRunning(second)).toBe(true);
    expect(listed(box)[0]).toMatchObject({ id, state: "running", daemon_running: true });
    // The conversation is still there, and the session takes prompts.
    const sync = await (await daemonFetch(box, id, "/sync")).json();
    expect(sync.session_state).toBe("running");
    expect(Number(sync.seq)).toBeGreaterThan(3);

    // A client following the events is attached: the daemon stays past its idle time...
    const stream = new AbortController();
    const res = await daemonFetch(box, id, `/events?after=${encodeURIComponent(sync.cursor)}`, { signal: stream.signal });
    expect(res.status).toBe(200);
    await Bun.sleep(3000);
    expect(processRunning(second)).toBe(true);
    // ...and goes once the client has left.
    stream.abort();
    await until(() => !processRunning(second), "the daemon to exit once the client left", 30_000);
    expect(listed(box)[0]).toMatchObject({ id, state: "stopped" });
  }, 90_000);

  test("daemon.idle_exit_secs is a known key (0 = never); a negative value is refused with the key named", () => {
    expect(agent(sandbox("daemon:\n  idle_exit_secs: 0\n"), ["config", "validate"]).code).toBe(0);
    const r = agent(sandbox("daemon:\n  idle_exit_secs: -5\n"), ["config", "validate"]);
    expect(r.code).not.toBe(0);
    expect(r.err + r.out).toContain("idle_exit_secs");
  }, 30_000);
});

describe("sessions stop --all and prune", () => {
  test("stop --all stops every running session of every project; prune removes old ones no daemon serves", async () => {
    const box = sandbox();
    const a = agent(box, ["new", "--detach", "--demo", "one"]).out.trim();
    const b = agent(box, ["new", "--detach", "--demo", "two"]).out.trim();
    const pids = [daemonJson(box, a).pid, daemonJson(box, b).pid];
    expect(pids.every(processRunning)).toBe(true);

    const stopped = agent(box, ["sessions", "stop", "--all"]);
    expect(stopped.code).toBe(0);
    expect(stopped.out.trim().split("\n").sort()).toEqual([a, b].sort());
    expect(stopped.err).toContain("stopped 2 session(s)");
    await until(() => !pids.some(processRunning), "both daemons to exit", 30_000);
    expect(listed(box).map((s) => s.state)).toEqual(["stopped", "stopped"]);
    const again = agent(box, ["sessions", "stop", "--all"]);
    expect(again).toMatchObject({ code: 0, out: "" });
    expect(again.err).toContain("no running sessions");
    expect(agent(box, ["sessions", "stop"]).code).toBe(2);

    // Nothing is older than a day yet; a running session is never pruned.
    const c = agent(box, ["new", "--detach", "--demo", "three"]).out.trim();
    const none = agent(box, ["sessions", "prune", "--older-than", "1d"]);
    expect(none).toMatchObject({ code: 0, out: "" });
    await Bun.sleep(1100);
    const dry = agent(box, ["sessions", "prune", "--older-than", "1s", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.out.split("\n").filter(Boolean).map((l) => l.split(/\s+/)[0]).sort()).toEqual([a, b].sort());
    expect(listed(box)).toHaveLength(3);
    const pruned = agent(box, ["sessions", "prune", "--older-than", "1s"]);
    expect(pruned.code).toBe(0);
    expect(pruned.err).toContain("removed 2 session(s)");
    expect(listed(box).map((s) => s.id)).toEqual([c]);
    expect(agent(box, ["sessions", "prune", "--older-than", "soon"])).toMatchObject({ code: 2 });
  }, 90_000);
});

describe("truthful states", () => {
  test("POST /session/stop, then agent continue: a fresh daemon serves the session and takes prompts", async () => {
    const box = sandbox();
    const id = agent(box, ["new", "--detach", "--demo"]).out.trim();
    const old = daemonJson(box, id).pid;
    const stop = await daemonFetch(box, id, "/session/stop", { method: "POST", body: "{}" });
    expect(stop.status).toBe(200);
    // The stopped daemon stays up to serve the history: continuing must not reuse it.
    expect(processRunning(old)).toBe(true);

    expect(agent(box, ["continue", "--detach", "--demo", id]).code).toBe(0);
    expect(processRunning(old)).toBe(false);
    const sync = await (await daemonFetch(box, id, "/sync")).json();
    expect(sync).toMatchObject({ session_state: "running", actions: { prompt: true } });
    const prompt = await daemonFetch(box, id, "/prompt", { method: "POST", body: JSON.stringify({ text: "fix the\nbuild\n" }) });
    expect(prompt.status).toBe(202);
    // The untitled session is named after its first prompt, on one line.
    expect(listed(box)[0]).toMatchObject({ id, state: "running", daemon_running: true, title: "fix the" });
  }, 60_000);

  test("agent exec leaves a stopped session; a trailing newline does not break the rows of sessions list", () => {
    const box = sandbox();
    const r = agent(box, ["exec", "--demo", "-"], "say hello\n\n");
    expect(r.code).toBe(0);
    const [row] = listed(box);
    expect(row).toMatchObject({ state: "stopped", daemon_running: false, title: "say hello" });
    const text = agent(box, ["sessions", "list"]).out;
    expect(text.split("\n").filter(Boolean)).toHaveLength(1);
    expect(text).toMatch(new RegExp(`^${row!.id}  stopped  .*  say hello\\n$`));
  }, 60_000);

  test("a session whose daemon cannot start is stopped, not left running", () => {
    const box = sandbox();
    // Without --demo and with no provider configured, the daemon refuses to start.
    const r = agent(box, ["new", "--detach", "hello"], "");
    expect(r.code).toBe(1);
    const [row] = listed(box);
    expect(row).toMatchObject({ state: "stopped", daemon_running: false, title: "hello" });
    expect(agent(box, ["sessions", "list"]).out).toContain("stopped");
  }, 60_000);
});
