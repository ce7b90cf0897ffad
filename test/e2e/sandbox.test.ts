// Issue 35 through the compiled binary on Linux with bubblewrap: a model (a local Chat Completions server
// in the user's own config, scripting the tool calls) runs shell commands through `agent exec` in the
// sandbox. In workspace_write they create project files without a question, but cannot read a canary
// under HOME/.ssh, write outside the project or into .git, reach a loopback server (unless the network
// is allowed) or read the environment of the process that runs them; leaving the sandbox is denied in
// exec; --allow and --deny hold for the run they are given to only.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { startProviderFake, type FakeStep, type ProviderFake } from "../fakes/provider-fake.ts";

const SSH_CANARY = "CANARY-ssh-key-5b90c2";
const ENV_CANARY = "CANARY-daemon-env-81fd3a";
const NET_CANARY = "CANARY-loopback-answer-c1e7";
const hasBwrap = process.platform === "linux" && Bun.which("bwrap") !== null;

let fake: ProviderFake | undefined;
let server: ReturnType<typeof Bun.serve> | undefined;
beforeAll(() => ensureBinary(), 300_000);
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
  server?.stop(true);
  server = undefined;
});

let callNumber = 0;
const shell = (command: string, extra: Record<string, unknown> = {}) => ({ id: `call_${++callNumber}`, name: "shell", arguments: JSON.stringify({ command, ...extra }) });
const turn = (text: string, calls: ReturnType<typeof shell>[] = []): FakeStep => ({ kind: "turn", turn: calls.length > 0 ? { text, tool_calls: calls } : { text } });

function workspace(sandboxBlock = "") {
  const base = mkdtempSync(join(tmpdir(), "agent-sandbox-e2e-"));
  const home = join(base, "home");
  const root = join(base, "proj");
  mkdirSync(join(home, ".ssh"), { recursive: true });
  writeFileSync(join(home, ".ssh", "id_ed25519"), `${SSH_CANARY}\n`);
  mkdirSync(join(root, ".git"), { recursive: true });
  writeFileSync(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
  const config = join(base, "config", "agent");
  mkdirSync(config, { recursive: true });
  // DEPLOY_TOKEN stands for a key in the environment of the process running the session.
  const env = { HOME: home, XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin", DEPLOY_TOKEN: ENV_CANARY };
  return {
    base,
    root,
    home,
    model(script: FakeStep[]) {
      fake = startProviderFake("b_chat_completions", script);
      writeFileSync(
        join(config, "config.yaml"),
        `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}" }\n` +
          "models:\n  m: { provider: local, class: full, context_window: 32000 }\n" +
          `defaults: { full: m, mini: m }\ndefault_permission_matcher: standard\n${sandboxBlock}`,
      );
      return fake;
    },
    async exec(flags: string[], prompt = "go") {
      const proc = Bun.spawn([BINARY, "exec", "--json", ...flags, prompt], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return { code, stdout, stderr };
    },
  };
}

/** Each tool result of the last request, in order. */
function results(f: ProviderFake): string[] {
  const last = f.requests.at(-1)?.body?.messages as { role: string; content: unknown }[];
  return last.filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

describe.skipIf(!hasBwrap)("agent exec --full-auto (workspace_write, bubblewrap)", () => {
  test("commands create project files without a question; the session line names the sandbox", async () => {
    const w = workspace();
    const f = w.model([turn("Writing.", [shell("mkdir -p out && echo made > out/made.txt && cat out/made.txt && echo tmp > \"$TMPDIR/x\" && cat \"$TMPDIR/x\"")]), turn("done")]);
    const r = await w.exec(["--full-auto"]);
    expect(r.code).toBe(0);
    expect(f.violations).toEqual([]);
    expect(JSON.parse(r.stdout.split("\n")[0]!)).toMatchObject({ type: "session", sandbox: "workspace_write, no network", autonomy: "sandboxed" });
    const [out] = results(f);
    expect(out).not.toContain("Permission denied");
    expect(out).toContain("made\ntmp\n[exit code 0]");
    expect(readFileSync(join(w.root, "out", "made.txt"), "utf8")).toBe("made\n");
  }, 90_000);

  test("a canary under HOME/.ssh cannot be read, nor the running process's environment", async () => {
    const w = workspace();
    const f = w.model([
      turn("Looking.", [
        shell("cat ~/.ssh/id_ed25519; ls -A ~/.ssh; echo listed"),
        shell("cat /proc/$PPID/environ; for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ; done 2>/dev/null | grep -c DEPLOY_TOKEN; env | grep -c DEPLOY_TOKEN"),
      ]),
      turn("done"),
    ]);
    const r = await w.exec(["--full-auto"]);
    expect(r.code).toBe(0);
    expect(f.violations).toEqual([]);
    for (const req of f.requests) {
      expect(JSON.stringify(req.body)).not.toContain(SSH_CANARY);
      expect(JSON.stringify(req.body)).not.toContain(ENV_CANARY);
    }
    const [ssh, environ] = results(f);
    expect(ssh).toContain("No such file or directory");
    expect(ssh).toContain("listed");
    expect(environ).toContain("0\n0\n");
    // The same commands without the sandbox do see them: the test would notice the sandbox going away.
    const g = w.model([turn("Looking.", [shell("cat ~/.ssh/id_ed25519"), shell("tr '\\0' '\\n' < /proc/$PPID/environ | grep DEPLOY_TOKEN")]), turn("done")]);
    const off = await w.exec(["--sandbox", "off", "--allow", "shell"]);
    expect(off.code).toBe(0);
    const [sshOff, environOff] = results(g);
    expect(sshOff).toContain(SSH_CANARY);
    expect(environOff).toContain(ENV_CANARY);
  }, 90_000);

  test("writes outside the project and into .git fail, with a hint to ask for an escape; the escape is denied in exec", async () => {
    const w = workspace();
    const outside = join(w.base, "outside.txt");
    const escaped = join(w.base, "escaped.txt");
    const f = w.model([
      turn("Writing.", [shell(`echo x > ${outside}`), shell("echo y > .git/HEAD")]),
      turn("Escaping.", [shell(`echo x > ${escaped}`, { outside_sandbox: true })]),
      turn("done"),
    ]);
    const r = await w.exec(["--full-auto"]);
    expect(r.code).toBe(0);
    expect(f.violations).toEqual([]);
    const [out, git, escape] = results(f);
    expect(out).toContain("Read-only file system");
    expect(out).toContain("`outside_sandbox: true`");
    expect(git).toContain("Read-only file system");
    expect(escape).toContain("Permission denied");
    expect(escape).toContain("OUTSIDE the sandbox");
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(escaped)).toBe(false);
    expect(readFileSync(join(w.root, ".git", "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
  }, 90_000);

  test("a loopback server is out of reach unless sandbox.network is true", async () => {
    server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(NET_CANARY) });
    const url = `http://127.0.0.1:${server.port}/`;
    const closed = workspace();
    const f = closed.model([turn("Fetching.", [shell(`curl -sS --max-time 5 ${url}`)]), turn("done")]);
    expect((await closed.exec(["--full-auto"])).code).toBe(0);
    const [blocked] = results(f);
    expect(blocked).not.toContain(NET_CANARY);
    expect(blocked).toContain("Couldn't connect to server");
    expect(blocked).toContain("the network");

    const open = workspace("sandbox: { network: true }\n");
    const g = open.model([turn("Fetching.", [shell(`curl -sS --max-time 5 ${url}`)]), turn("done")]);
    const r = await open.exec(["--full-auto"]);
    expect(JSON.parse(r.stdout.split("\n")[0]!)).toMatchObject({ sandbox: "workspace_write, network allowed" });
    expect(results(g)[0]).toContain(NET_CANARY);
  }, 90_000);
});

describe("per-run rules", () => {
  test("--allow and --deny hold for one run only", async () => {
    const w = workspace();
    const f = w.model([turn("Touching.", [shell("touch a.txt")]), turn("done")]);
    expect((await w.exec(["--allow", "shell(touch:*)"])).code).toBe(0);
    expect(results(f)[0]).toContain("[exit code 0]");
    expect(existsSync(join(w.root, "a.txt"))).toBe(true);

    const g = w.model([turn("Touching.", [shell("touch b.txt")]), turn("done")]);
    expect((await w.exec([])).code).toBe(0);
    expect(results(g)[0]).toContain("needs the user's approval");
    expect(existsSync(join(w.root, "b.txt"))).toBe(false);

    const h = w.model([turn("Touching.", [shell("touch c.txt")]), turn("done")]);
    expect((await w.exec(["--allow", "shell", "--deny", "shell(touch:*)"])).code).toBe(0);
    expect(results(h)[0]).toContain("is denied by rule shell(touch:*) (--deny)");
    expect(existsSync(join(w.root, "c.txt"))).toBe(false);
    expect(existsSync(join(w.base, "config", "agent", "permissions.yaml"))).toBe(false);
    expect(existsSync(join(w.root, ".agent", "permissions.yaml"))).toBe(false);
  }, 90_000);

  test("Claude Code's rule form is refused with ours named", async () => {
    const w = workspace();
    w.model([turn("done")]);
    const r = await w.exec(["--allow", "Bash(git *)"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("'Bash(git *)' is Claude Code's rule form; ours is 'shell(git:*)'");
  }, 90_000);
});
