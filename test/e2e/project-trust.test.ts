// Project trust through the compiled binary, as a person who cloned a repository meets it: `agent exec`
// starts none of the project's tool servers or scripts and sends no credential to its addresses until
// `agent trust` (or --trust-project), says so in one line, and a change to what would run asks again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";

const PROVIDER = "providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\n";

interface Project {
  root: string;
  env: Record<string, string>;
  trustFile: string;
  config(text: string): void;
}

function project(config: string, script = 'responses:\n  - text: "done"\n'): Project {
  const base = mkdtempSync(join(tmpdir(), "agent-trust-e2e-"));
  const root = join(base, "proj");
  mkdirSync(join(root, ".git"), { recursive: true });
  mkdirSync(join(root, ".agent"));
  writeFileSync(join(root, "script.yaml"), script);
  const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const p = { root, env, trustFile: join(base, "data", "agent", "trust", "projects.json"), config: (text: string) => writeFileSync(join(root, ".agent", "config.yaml"), text) };
  p.config(config);
  return p;
}

function run(p: Project, args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawnSync([BINARY, ...args], { cwd: p.root, env: { ...p.env, ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

/** A stdio tool server whose start leaves a marker file (then it fails the handshake at once). */
const server = (marker: string) => `${PROVIDER}mcp_servers:\n  probe:\n    transport: stdio\n    command: sh\n    args: ["-c", "touch ${marker}; exec cat"]\n`;

/** The one trust warning line of a run (not a tool call's denial, which may say the project is not trusted too). */
const notTrustedLines = (stderr: string) =>
  stderr.split("\n").filter((l) => (l.includes("is not trusted") && !l.includes("the project is not trusted: its")) || l.includes("changed since you trusted it"));

beforeAll(() => ensureBinary(), 180_000);

describe("a project's stdio tool server", () => {
  test("agent exec does not start it and prints one line naming the file and the command that trusts it", () => {
    const p = project("");
    const marker = join(p.root, "marker");
    p.config(server(marker));
    const r = run(p, ["exec", "--facet", "plan", "hello"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("done\n");
    expect(existsSync(marker)).toBe(false);
    const lines = notTrustedLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(".agent/config.yaml is not trusted");
    expect(lines[0]).toContain(`tool server 'probe' runs: sh -c 'touch ${marker}; exec cat'`);
    expect(lines[0]).toContain("run 'agent trust'");
    expect(lines[0]).toContain("--trust-project");
    expect(existsSync(p.trustFile)).toBe(false);
  });

  test("--trust-project starts it for this run only; nothing is recorded", () => {
    const p = project("");
    const marker = join(p.root, "marker");
    p.config(server(marker));
    const r = run(p, ["exec", "--trust-project", "hello"]);
    expect(r.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
    expect(notTrustedLines(r.stderr)).toEqual([]);
    expect(existsSync(p.trustFile)).toBe(false);
  });

  test("agent trust shows what would run and records it (0600); exec then starts it; a changed command asks again", () => {
    const p = project("");
    const marker = join(p.root, "marker");
    p.config(server(marker));
    const t = run(p, ["trust"]);
    expect(t.code).toBe(0);
    expect(t.stdout).toContain(`Trusted: ${join(p.root, ".agent", "config.yaml")}`);
    expect(t.stdout).toContain(`tool server 'probe' runs: sh -c 'touch ${marker}; exec cat'`);
    expect(statSync(p.trustFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(p.trustFile, "..")).mode & 0o777).toBe(0o700);

    const r = run(p, ["exec", "hello"]);
    expect(r.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
    expect(notTrustedLines(r.stderr)).toEqual([]);

    // Another setting of the same file changes nothing; another command line asks again.
    p.config(`${server(marker)}daemon:\n  max_tool_turns: 7\n`);
    expect(notTrustedLines(run(p, ["exec", "hello"]).stderr)).toEqual([]);
    const other = join(p.root, "other-marker");
    p.config(server(other));
    const again = run(p, ["exec", "hello"]);
    expect(existsSync(other)).toBe(false);
    expect(notTrustedLines(again.stderr)).toHaveLength(1);
    expect(notTrustedLines(again.stderr)[0]).toContain(".agent/config.yaml changed since you trusted it");
  });

  test("a script the server runs from the project is pinned by its content", () => {
    const p = project("");
    const marker = join(p.root, "marker");
    writeFileSync(join(p.root, "server.sh"), `touch ${marker}\nexec cat\n`);
    p.config(`${PROVIDER}mcp_servers:\n  probe: { transport: stdio, command: sh, args: [server.sh] }\n`);
    expect(run(p, ["trust"]).code).toBe(0);
    writeFileSync(join(p.root, "server.sh"), `touch ${marker}-evil\nexec cat\n`);
    const r = run(p, ["exec", "hello"]);
    expect(existsSync(`${marker}-evil`)).toBe(false);
    expect(notTrustedLines(r.stderr)[0]).toContain("changed since you trusted it");
  });
});

describe("agent trust --list / --revoke", () => {
  test("lists trusted projects with their state; revoke forgets one; revoking again fails", () => {
    const p = project("");
    const marker = join(p.root, "marker");
    p.config(server(marker));
    expect(run(p, ["trust", "--list"]).stdout).toBe("No trusted projects.\n");
    expect(run(p, ["trust", p.root]).code).toBe(0);
    const listed = run(p, ["trust", "--list"]);
    expect(listed.stdout).toMatch(new RegExp(`^trusted\\s+${p.root}\\s+trusted \\d{4}-`));
    expect(listed.stdout).toContain(`- tool server 'probe' runs: sh -c 'touch ${marker}; exec cat'`);
    p.config(server(`${marker}2`));
    expect(run(p, ["trust", "--list"]).stdout).toMatch(/^changed\s/);
    const json = JSON.parse(run(p, ["trust", "--list", "--json"]).stdout) as { project: string; state: string }[];
    expect(json.map((r) => [r.project, r.state])).toEqual([[p.root, "changed"]]);

    p.config(server(marker));
    const revoked = run(p, ["trust", "--revoke"]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked: sessions of ${p.root} start without`);
    expect(statSync(p.trustFile).mode & 0o777).toBe(0o600);
    run(p, ["exec", "hello"]);
    expect(existsSync(marker)).toBe(false);
    const twice = run(p, ["trust", "--revoke"]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain(`${p.root} was not trusted; nothing to revoke`);
  });

  test("bad input: a missing directory and a damaged trust file are named; the damaged file trusts nothing", () => {
    const p = project("");
    const marker = join(p.root, "marker");
    p.config(server(marker));
    const missing = run(p, ["trust", join(p.root, "nope")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${join(p.root, "nope")}: no such directory`);
    expect(run(p, ["trust"]).code).toBe(0);
    writeFileSync(p.trustFile, "{ not json");
    const list = run(p, ["trust", "--list"]);
    expect(list.code).toBe(1);
    expect(list.stderr).toContain(`${p.trustFile}: not valid JSON; fix or delete it`);
    const r = run(p, ["exec", "hello"]);
    expect(existsSync(marker)).toBe(false);
    expect(notTrustedLines(r.stderr)[0]).toContain(`${p.trustFile}: not valid JSON`);
  });
});

describe("agent_behavior.shell.init_script", () => {
  const SHELL_SCRIPT = 'responses:\n  - tool_calls:\n      - { name: shell, arguments: { command: "echo hi" } }\n  - text: "done"\n';
  const setUp = () => {
    const p = project("", SHELL_SCRIPT);
    const marker = join(p.root, "init-marker");
    writeFileSync(join(p.root, "init.sh"), `touch ${marker}\n`);
    // The user's own rule (a project's allow rules wait for trust too), so the shell runs either way.
    mkdirSync(join(p.env.XDG_CONFIG_HOME!, "agent"), { recursive: true });
    writeFileSync(join(p.env.XDG_CONFIG_HOME!, "agent", "permissions.yaml"), "allow:\n  - shell(echo:*)\n");
    p.config(`${PROVIDER}agent_behavior:\n  shell: { command: bash, init_script: init.sh }\n`);
    return { p, marker };
  };

  test("is not sourced until trusted; the shell still runs; a change to the script's content asks again", () => {
    const { p, marker } = setUp();
    const r = run(p, ["exec", "hello"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('→ shell {"command":"echo hi"}');
    expect(existsSync(marker)).toBe(false);
    expect(notTrustedLines(r.stderr)).toHaveLength(1);
    expect(notTrustedLines(r.stderr)[0]).toContain("shell init script init.sh");

    expect(run(p, ["trust"]).code).toBe(0);
    expect(run(p, ["exec", "hello"]).code).toBe(0);
    expect(existsSync(marker)).toBe(true);

    writeFileSync(join(p.root, "init.sh"), `touch ${marker}-changed\n`);
    const again = run(p, ["exec", "hello"]);
    expect(existsSync(`${marker}-changed`)).toBe(false);
    expect(notTrustedLines(again.stderr)[0]).toContain("changed since you trusted it");
  });

  test("named by the global config, the project's script still needs the project's trust", () => {
    const { p, marker } = setUp();
    p.config(PROVIDER);
    const globalDir = join(p.env.XDG_CONFIG_HOME!, "agent");
    mkdirSync(globalDir, { recursive: true });
    writeFileSync(join(globalDir, "config.yaml"), "agent_behavior:\n  shell: { command: bash, init_script: init.sh }\n");
    const r = run(p, ["exec", "hello"]);
    expect(existsSync(marker)).toBe(false);
    expect(notTrustedLines(r.stderr)[0]).toContain("named by the global config");
  });
});

describe("credentials and project-chosen addresses", () => {
  let requests: { auth: string | null }[] = [];
  const fake = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      requests.push({ auth: req.headers.get("authorization") });
      return new Response("no", { status: 401 });
    },
  });
  afterAll(() => fake.stop(true));

  async function exec(p: Project, args: string[]) {
    const proc = Bun.spawn([BINARY, "exec", ...args, "hello"], { cwd: p.root, env: { ...p.env, MY_PROVIDER_KEY: "sk-user-secret" }, stdout: "pipe", stderr: "pipe" });
    const [stderr] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    return { code: proc.exitCode, stderr };
  }

  test("a project provider url with the user's key from the environment gets nothing until trusted", async () => {
    const p = project(`providers:
  mine:
    kind: { type: custom_b_compatible }
    url: http://127.0.0.1:${fake.port}/v1
    auth: { type: static_key, key: "\${MY_PROVIDER_KEY}" }
models:
  m: { provider: mine, class: full, context_window: 8000 }
defaults: { full: m }
daemon: { retry: { max_retries: 0 } }
`);
    requests = [];
    const r = await exec(p, []);
    expect(r.code).toBe(1);
    expect(requests).toEqual([]);
    expect(r.stderr).toContain(`provider 'mine' sends the key \${MY_PROVIDER_KEY} to http://127.0.0.1:${fake.port}/v1`);
    expect(r.stderr).not.toContain("sk-user-secret");

    await exec(p, ["--trust-project"]);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests[0]!.auth).toBe("Bearer sk-user-secret");
  });

  test("a project tool server at an http address with the user's header is not contacted until trusted", async () => {
    const p = project(`${PROVIDER}mcp_servers:\n  remote:\n    transport: http\n    url: http://127.0.0.1:${fake.port}/mcp\n    headers: { Authorization: "Bearer \${MY_PROVIDER_KEY}" }\n`);
    requests = [];
    const r = await exec(p, []);
    expect(r.code).toBe(0);
    expect(requests).toEqual([]);
    expect(notTrustedLines(r.stderr)[0]).toContain(`tool server 'remote' at http://127.0.0.1:${fake.port}/mcp with headers Authorization`);
    await exec(p, ["--trust-project"]);
    expect(requests.some((q) => q.auth === "Bearer sk-user-secret")).toBe(true);
  });
});

describe("allow rules in the project's .agent/permissions.yaml", () => {
  const touch = (marker: string) => `responses:\n  - tool_calls:\n      - { name: shell, arguments: { command: "touch ${marker}" } }\n  - text: "done"\n`;

  test("a cloned `allow: [shell]` runs nothing until trusted; exec prints the trust line; a hand-added rule asks again", () => {
    const p = project(PROVIDER);
    const marker = join(p.root, "marker");
    writeFileSync(join(p.root, "script.yaml"), touch(marker));
    const rules = join(p.root, ".agent", "permissions.yaml");
    writeFileSync(rules, "allow:\n  - shell\n");

    const r = run(p, ["exec", "hello"]);
    expect(r.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const lines = notTrustedLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(".agent/permissions.yaml is not trusted; started without: allow rules in .agent/permissions.yaml: shell.");
    expect(lines[0]).toContain("run 'agent trust'");
    // The refused call says why: the project's rule waits for trust, not that no rule exists.
    expect(r.stderr).toContain("the project is not trusted: its allow rule shell");

    const t = run(p, ["trust"]);
    expect(t.code).toBe(0);
    expect(t.stdout).toContain(`Trusted: ${rules}`);
    expect(t.stdout).toContain("- allow rules in .agent/permissions.yaml: shell\n");
    const trusted = run(p, ["exec", "hello"]);
    expect(notTrustedLines(trusted.stderr)).toEqual([]);
    expect(existsSync(marker)).toBe(true);

    // Adding a rule by hand (or a pull that does) asks again, and nothing of the file is used meanwhile.
    rmSync(marker);
    writeFileSync(rules, "allow:\n  - shell\n  - web_fetch(domain:collector.example.net)\n");
    const changed = run(p, ["exec", "hello"]);
    expect(existsSync(marker)).toBe(false);
    expect(notTrustedLines(changed.stderr)).toHaveLength(1);
    expect(notTrustedLines(changed.stderr)[0]).toContain(".agent/permissions.yaml changed since you trusted it; started without: allow rules in .agent/permissions.yaml: shell, web_fetch(domain:collector.example.net)");

    // --trust-project uses them for one run; revoke forgets the project.
    expect(run(p, ["exec", "--trust-project", "hello"]).code).toBe(0);
    expect(existsSync(marker)).toBe(true);
    expect(run(p, ["trust", "--revoke"]).stdout).toContain("start without its tool servers, scripts, providers and models, addresses and allow rules");
  });

  test("deny and ask rules need no trust: a project with only those prints no trust line", () => {
    const p = project(PROVIDER);
    const marker = join(p.root, "marker");
    writeFileSync(join(p.root, "script.yaml"), touch(marker));
    writeFileSync(join(p.root, ".agent", "permissions.yaml"), "deny:\n  - shell(touch:*)\nask:\n  - shell(git push:*)\n");
    const r = run(p, ["exec", "hello"]);
    expect(r.code).toBe(0);
    expect(notTrustedLines(r.stderr)).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });
});
