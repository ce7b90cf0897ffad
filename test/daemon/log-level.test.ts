// `daemon.log_level` of the session's config decides what `daemon.log` gets: debug adds a line per
// request (method, path, status, time; no query string, no token), error keeps only errors. A real
// `agent daemon --demo` process with a config file.
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFreshCredential } from "../../src/daemon/credential.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");
const procs: ReturnType<typeof Bun.spawn>[] = [];
afterEach(() => {
  for (const p of procs.splice(0)) p.kill(9);
});

async function daemonWith(level: string) {
  const home = mkdtempSync(join(tmpdir(), "agent-loglevel-"));
  const dir = join(home, "session");
  mkdirSync(join(home, "project"));
  const cred = join(home, "credential.json");
  const token = writeFreshCredential(cred);
  const config = join(home, "config.yaml");
  writeFileSync(config, `daemon:\n  log_level: ${level}\n`);
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, "cfg"), XDG_DATA_HOME: join(home, "data") };
  const proc = Bun.spawn(["bun", MAIN, "daemon", "--session-dir", dir, "--credential-file", cred, "--project", join(home, "project"), "--demo", "--config", config], { env, stdout: "pipe", stderr: "pipe" });
  procs.push(proc);
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(await new Response(proc.stderr).text());
    out += new TextDecoder().decode(value);
  }
  const { port } = JSON.parse(out.split("\n")[0]!);
  const res = await fetch(`http://127.0.0.1:${port}/sync`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  const bad = await fetch(`http://127.0.0.1:${port}/events?after=forged-cursor-text`, { headers: { Authorization: `Bearer ${token}` } });
  expect(bad.status).toBe(400);
  proc.kill("SIGTERM");
  await proc.exited;
  // Nothing to log at this level: no file at all.
  const log = existsSync(join(dir, "daemon.log")) ? readFileSync(join(dir, "daemon.log"), "utf8") : "";
  return { log, token };
}

test("log_level debug: a line per request; error: no info lines", async () => {
  const debug = await daemonWith("debug");
  expect(debug.log).toMatch(/ info daemon started: session ses_\S+, port \d+, pid \d+, epoch ep_\S+, log level debug\n/);
  expect(debug.log).toMatch(/ debug GET \/sync 200 [\d.]+ms\n/);
  expect(debug.log).toContain(" info daemon stopped\n");
  expect(debug.log).not.toContain(debug.token);
  expect(debug.log).toMatch(/ debug GET \/events 400 [\d.]+ms\n/);
  expect(debug.log).not.toContain("forged-cursor-text");

  const quiet = await daemonWith("error");
  expect(quiet.log).not.toContain(" info ");
  expect(quiet.log).not.toContain(" debug ");
}, 60_000);
