// The CLI as a user runs it (real processes): `agent daemon` credential rules, and
// `agent new --detach` / `sessions list|stop|rm` on the offline demo provider.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");
const started: string[] = [];

function agent(args: string[], cwd: string, env: Record<string, string> = {}) {
  const p = Bun.spawnSync(["bun", MAIN, ...args], { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

afterAll(() => {
  for (const id of started) agent(["sessions", "stop", id], tmpdir());
});

describe("agent daemon", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-cred-"));
  chmodSync(dir, 0o700);
  const token = "dmn_0123456789abcdefghijklmnopqrstuvwxyz";

  test("refuses to start without a loadable credential, naming the file and the rule, never the token", () => {
    const cred = join(dir, "credential.json");
    const session = join(dir, "s");
    writeFileSync(cred, JSON.stringify({ token }), { mode: 0o644 });
    chmodSync(cred, 0o644);
    let r = agent(["daemon", "--session-dir", session, "--credential-file", cred], dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`credential file ${cred} has mode 644; it must be 600`);
    expect(r.err + r.out).not.toContain(token);
    chmodSync(cred, 0o600);
    writeFileSync(cred, JSON.stringify({ secret: token }));
    r = agent(["daemon", "--session-dir", session, "--credential-file", cred], dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain("has no string field 'token'");
    expect(r.err).not.toContain(token);
    r = agent(["daemon", "--session-dir", session], dir, { AGENT_DAEMON_CREDENTIAL_FILE: "" });
    expect(r.code).toBe(2);
    expect(r.err).toContain("--credential-file");
    expect(existsSync(join(session, "daemon.json"))).toBe(false);
  }, 30_000);
});

describe("agent new / sessions", () => {
  test("new --detach prints the id and leaves the daemon running; list, stop and rm manage it", async () => {
    const project = mkdtempSync(join(tmpdir(), "agent-proj-"));
    mkdirSync(join(project, ".git"));
    const created = agent(["new", "--detach", "--demo", "hello"], project);
    expect(created.code).toBe(0);
    const id = created.out.trim();
    expect(id).toMatch(/^ses_[0-9a-z]{26}$/);
    started.push(id);

    const listed = agent(["sessions", "list", "--json"], project);
    expect(listed.code).toBe(0);
    const row = JSON.parse(listed.out.trim().split("\n")[0]!);
    expect(row).toMatchObject({ id, state: "running", daemon_running: true, title: "hello" });

    const rmRunning = agent(["sessions", "rm", id], project);
    expect(rmRunning.code).toBe(1);
    expect(rmRunning.err).toContain("is running");

    const stopped = agent(["sessions", "stop", id], project);
    expect(stopped.code).toBe(0);
    const after = JSON.parse(agent(["sessions", "list", "--json"], project).out.trim());
    expect(after).toMatchObject({ id, state: "stopped" });

    expect(agent(["sessions", "rm", id], project).code).toBe(0);
    expect(agent(["sessions", "list", "--json"], project).out).toBe("");
    expect(agent(["sessions", "stop", "ses_nope"], project).code).toBe(1);
  }, 60_000);
});
