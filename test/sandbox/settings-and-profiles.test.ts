// The sandbox block (a project only tightens it, the run's flags are the user's), the policy written
// from it, bubblewrap's arguments, the macOS Seatbelt profile (checked by format: this machine has no
// sandbox-exec), and the one line a session gets when no sandbox can run.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bwrapArgs } from "../../src/sandbox/bwrap.ts";
import { sandboxBlockHint } from "../../src/sandbox/failure.ts";
import { sandboxPolicy, type SandboxPolicy } from "../../src/sandbox/policy.ts";
import { type SandboxHost, startSandbox } from "../../src/sandbox/sandbox.ts";
import { seatbeltProfile, seatbeltString } from "../../src/sandbox/seatbelt.ts";
import { sessionSandbox } from "../../src/sandbox/session-sandbox.ts";
import { resolveSandboxSettings, type SandboxSettings } from "../../src/sandbox/settings.ts";
import { configEnv } from "../helpers/config-env.ts";

function loaded(global: string, project = "") {
  const env = configEnv();
  env.globalFile(global);
  if (project) env.projectFile(project);
  const result = env.load({ untrusted: "keep" });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return { env, result };
}

describe("sandbox settings", () => {
  test("defaults: off with autonomy ask; autonomy sandboxed brings workspace_write", () => {
    expect(resolveSandboxSettings(loaded("").result)).toMatchObject({ mode: "off", network: false, autonomy: "ask", writableRoots: [], notes: [] });
    expect(resolveSandboxSettings(loaded("sandbox: { autonomy: sandboxed }\n").result)).toMatchObject({ mode: "workspace_write", autonomy: "sandboxed" });
    expect(resolveSandboxSettings(loaded("").result, { autonomy: "sandboxed" })).toMatchObject({ mode: "workspace_write", autonomy: "sandboxed" });
  });

  test("a project may tighten every value and loosen none; each loosening is named", () => {
    const { result, env } = loaded(
      "sandbox: { mode: workspace_write, network: true, autonomy: sandboxed, writable_roots: [~/cache, /opt/a] }\n",
      "sandbox: { mode: read_only, network: false, autonomy: ask, writable_roots: [~/cache] }\n",
    );
    expect(resolveSandboxSettings(result, {}, env.home)).toMatchObject({ mode: "read_only", network: false, autonomy: "ask", writableRoots: [join(env.home, "cache")], notes: [] });
    const loose = loaded("sandbox: { mode: read_only, autonomy: ask }\n", "sandbox: { mode: off, network: true, autonomy: sandboxed, writable_roots: [/] }\n");
    const s = resolveSandboxSettings(loose.result, {}, loose.env.home);
    expect(s).toMatchObject({ mode: "read_only", network: false, autonomy: "ask", writableRoots: [] });
    expect(s.notes).toEqual([
      `the project's sandbox.autonomy ("sandboxed") is left out: a project may only tighten the sandbox set in the global config`,
      `the project's sandbox.mode ("off") is left out: a project may only tighten the sandbox set in the global config`,
      `the project's sandbox.network (true) is left out: a project may only tighten the sandbox set in the global config`,
      `the project's sandbox.writable_roots ("/") is left out: a project may only tighten the sandbox set in the global config`,
    ]);
    // The run's flags are the user's own.
    expect(resolveSandboxSettings(loose.result, { mode: "off" })).toMatchObject({ mode: "off" });
  });

  test("a bad mode is a config error naming the allowed values", () => {
    const env = configEnv();
    env.globalFile("sandbox: { mode: strict }\n");
    const result = env.load();
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result.problems)).toContain("sandbox.mode");
  });
});

function places(root: string) {
  const home = join(root, "home");
  const project = join(root, "project");
  for (const d of [join(home, ".ssh"), join(home, ".aws"), join(project, ".git"), join(project, ".agent"), join(home, ".config", "agent")]) mkdirSync(d, { recursive: true });
  writeFileSync(join(project, ".env"), "X=1\n");
  return { projectRoot: project, home, agentDirs: [join(home, ".config", "agent"), join(root, "no-data-yet")], secretPaths: [join(project, ".env")] };
}

describe("policy and bubblewrap arguments", () => {
  test("workspace_write: project writable, .git/.agent read-only, secrets covered, no network", () => {
    const env = configEnv();
    const p = places(env.root);
    const policy = sandboxPolicy({ mode: "workspace_write", network: false, writableRoots: [], autonomy: "sandboxed", notes: [] }, p)!;
    expect(policy.writable).toEqual([p.projectRoot]);
    expect(policy.readOnly).toEqual([join(p.projectRoot, ".git"), join(p.projectRoot, ".agent")]);
    expect(policy.hidden).toEqual([
      { path: join(p.home, ".ssh"), directory: true },
      { path: join(p.home, ".aws"), directory: true },
      { path: join(p.home, ".config", "agent"), directory: true },
      { path: join(p.projectRoot, ".env"), directory: false },
    ]);
    const args = bwrapArgs(policy, "/tmp/agent-shell-x").join(" ");
    expect(args).toContain("--unshare-pid");
    expect(args).toContain("--unshare-net");
    expect(args).toContain("--ro-bind / /");
    expect(args).toContain(`--bind ${p.projectRoot} ${p.projectRoot} --bind /tmp/agent-shell-x /tmp/agent-shell-x --ro-bind ${p.projectRoot}/.git`);
    expect(args).toContain(`--tmpfs ${p.home}/.ssh --remount-ro ${p.home}/.ssh`);
    expect(args).toContain(`--ro-bind /dev/null ${p.projectRoot}/.env`);
    expect(bwrapArgs({ ...policy, network: true }, "/t")).not.toContain("--unshare-net");
  });

  test("the user's runtime directory (session bus) is covered like a secret", () => {
    const env = configEnv();
    const p = places(env.root);
    const runtimeDir = join(env.root, "run-user-1000");
    mkdirSync(runtimeDir);
    const policy = sandboxPolicy({ mode: "workspace_write", network: false, writableRoots: [], autonomy: "ask", notes: [] }, { ...p, runtimeDir })!;
    expect(bwrapArgs(policy, "/t").join(" ")).toContain(`--tmpfs ${runtimeDir} --remount-ro ${runtimeDir}`);
  });

  test.skipIf(process.platform !== "linux" || Bun.which("bwrap") === null)("a socket under a read-only mount still connects; the SSH agent's is covered", async () => {
    const env = configEnv();
    const p = places(env.root);
    const socket = join(env.root, "agent.sock");
    const server = Bun.listen({ unix: socket, socket: { data() {}, open(s) { s.end(); } } });
    try {
      const connect = [process.execPath, "-e", `await Bun.connect({ unix: ${JSON.stringify(socket)}, socket: { data() {} } }); console.log("connected"); process.exit(0);`];
      const run = (sshAgentSocket?: string) => {
        const policy = sandboxPolicy({ mode: "workspace_write", network: false, writableRoots: [], autonomy: "ask", notes: [] }, { ...p, ...(sshAgentSocket ? { sshAgentSocket } : {}) })!;
        return Bun.spawnSync(["bwrap", ...bwrapArgs(policy, env.root), "--", ...connect], { stdout: "pipe", stderr: "pipe" }).stdout.toString();
      };
      expect(run()).toContain("connected");
      expect(run(socket)).not.toContain("connected");
    } finally {
      server.stop(true);
    }
  });

  test("read_only writes nothing but the shell's own temp dir; off is no policy", () => {
    const env = configEnv();
    const p = places(env.root);
    const policy = sandboxPolicy({ mode: "read_only", network: false, writableRoots: [], autonomy: "ask", notes: [] }, p)!;
    expect(policy.writable).toEqual([]);
    expect(bwrapArgs(policy, "/t").filter((a) => a === "--bind")).toHaveLength(1);
    expect(sandboxPolicy({ mode: "off", network: false, writableRoots: [], autonomy: "ask", notes: [] }, p)).toBeNull();
  });

  test("a secret directory holding the project is not hidden (it would hide the work)", () => {
    const env = configEnv();
    const p = places(env.root);
    const policy = sandboxPolicy({ mode: "workspace_write", network: false, writableRoots: [], autonomy: "ask", notes: [] }, { ...p, agentDirs: [env.root] })!;
    expect(policy.hidden.map((h) => h.path)).not.toContain(env.root);
  });
});

const POLICY: SandboxPolicy = {
  mode: "workspace_write",
  network: false,
  writable: ['/Users/a/my "proj"'],
  readOnly: ['/Users/a/my "proj"/.git'],
  hidden: [
    { path: "/Users/a/.ssh", directory: true },
    { path: "/Users/a/proj/.env", directory: false },
  ],
};

/** Balanced parentheses outside string literals, every form a (keyword ...) list. */
function wellFormed(profile: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < profile.length; i++) {
    const c = profile[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "(") depth++;
    else if (c === ")" && --depth < 0) return false;
  }
  return depth === 0 && !inString;
}

describe("Seatbelt profile (macOS)", () => {
  test("is well formed, denies by default, and says what the policy says", () => {
    const profile = seatbeltProfile(POLICY, "/private/var/folders/x/agent-shell-1");
    expect(wellFormed(profile)).toBe(true);
    const lines = profile.trim().split("\n");
    expect(lines.slice(0, 2)).toEqual(["(version 1)", "(deny default)"]);
    for (const line of lines) expect(line).toMatch(/^\((version|allow|deny) /);
    expect(profile).toContain(`(allow file-write* (subpath ${seatbeltString('/Users/a/my "proj"')}) (subpath "/private/var/folders/x/agent-shell-1"))`);
    expect(profile).toContain(`(deny file-write* (subpath "/Users/a/my \\"proj\\"/.git"))`);
    expect(profile).toContain('(deny file-read* file-write* (subpath "/Users/a/.ssh") (literal "/Users/a/proj/.env"))');
    expect(profile).toContain("(allow process-info* (target same-sandbox))");
    expect(profile).not.toContain("network");
    expect(seatbeltProfile({ ...POLICY, network: true }, "/t")).toContain("(allow network*)");
  });
});

describe("no sandbox available", () => {
  const settings: SandboxSettings = { mode: "workspace_write", network: false, writableRoots: [], autonomy: "sandboxed", notes: [] };
  const host = (over: Partial<SandboxHost>): SandboxHost => ({ platform: "linux", which: () => "/usr/bin/bwrap", probe: () => null, ...over });

  test("falls back to off with one line naming why, never silently", () => {
    const p = places(configEnv().root);
    expect(startSandbox(settings, p, host({ which: () => null }))).toEqual({
      sandbox: null,
      notice: "sandbox.mode is workspace_write but bubblewrap is not installed (Debian/Ubuntu: apt install bubblewrap): shell commands run WITHOUT a sandbox (mode off) and ask as with autonomy accept_edits",
    });
    expect(startSandbox(settings, p, host({ probe: () => "bubblewrap cannot start a sandbox here (bwrap: No permissions to create new namespace)" })).notice).toContain("No permissions to create new namespace");
    expect(startSandbox(settings, p, host({ platform: "win32" })).notice).toContain("there is no sandbox for win32");
    expect(startSandbox(settings, p, host({})).sandbox?.description).toBe("workspace_write, no network");
  });

  test("a session whose sandbox fell back runs with autonomy accept_edits", () => {
    const { result, env } = loaded("sandbox: { autonomy: sandboxed }\n");
    const s = sessionSandbox(result, env.env, env.project, {}, host({ which: () => null }));
    expect(s).toMatchObject({ sandbox: null, description: "off", autonomy: "accept_edits" });
    expect(s.notices).toHaveLength(1);
  });
});

describe("blocked-by-the-sandbox hint", () => {
  const policy: SandboxPolicy = { mode: "workspace_write", network: false, writable: ["/p"], readOnly: [], hidden: [] };
  test("names writes and the network from the messages, only for failures", () => {
    expect(sandboxBlockHint(policy, 1, "touch: cannot touch '/x': Read-only file system")).toContain("may have blocked writing outside the project");
    expect(sandboxBlockHint(policy, 6, "curl: (6) Could not resolve host: example.com")).toContain("may have blocked the network");
    expect(sandboxBlockHint(policy, 0, "Read-only file system")).toBeNull();
    expect(sandboxBlockHint(policy, 1, "test failed: expected 2")).toBeNull();
    expect(sandboxBlockHint({ ...policy, network: true }, 7, "Connection refused")).toBeNull();
  });
});
