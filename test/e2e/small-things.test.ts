// Issue 27 item 5, small things users hit, with the compiled binary in a throwaway HOME: a closed pipe
// ends `agent sessions list` quietly; `agent config validate` warns about a missing theme file and a
// secret typed into a file, and two project config files are not "no config file".
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { TermSession } from "../tui/terminal.ts";

let home: string;
let project: string;
let env: Record<string, string>;

beforeAll(() => {
  ensureBinary();
  home = mkdtempSync(join(tmpdir(), "agent-small-things-"));
  project = join(home, "work", "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  env = { HOME: home, XDG_CONFIG_HOME: join(home, "config"), XDG_DATA_HOME: join(home, "data"), PATH: process.env.PATH ?? "/usr/bin:/bin", OTHER_API_KEY: "from-the-environment" };
}, 180_000);

afterAll(() => {
  Bun.spawnSync([BINARY, "sessions", "list", "--all", "--json"], { cwd: project, env }).stdout.toString().split("\n").filter(Boolean)
    .forEach((line) => Bun.spawnSync([BINARY, "sessions", "stop", JSON.parse(line).id], { cwd: project, env }));
  rmSync(home, { recursive: true, force: true });
}, 60_000);

async function agent(args: string[]) {
  const proc = Bun.spawn([BINARY, ...args], { cwd: project, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

function writeFile(path: string, text: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
}

const globalConfig = () => join(env.XDG_CONFIG_HOME!, "agent", "config.yaml");

describe("a reader that goes away", () => {
  test("`agent sessions list | head`: the pipe closes first, the command ends quietly with no crash report", async () => {
    const made = await agent(["new", "--detach", "--demo", "hello"]);
    expect(made.code).toBe(0);
    // The reader closes its end at once, so every write of the command meets a broken pipe.
    const proc = Bun.spawn(["bash", "-c", `"${BINARY}" sessions list | (exec 0<&-; sleep 1)`], { cwd: project, env, stdout: "pipe", stderr: "pipe" });
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const pipeStatus = Bun.spawnSync(["bash", "-c", `"${BINARY}" sessions list | (exec 0<&-; sleep 1); echo "\${PIPESTATUS[0]}"`], { cwd: project, env });
    expect(pipeStatus.stdout.toString().trim()).toBe("0");
    expect(existsSync(join(env.XDG_DATA_HOME!, "agent", "crash-reports"))).toBe(false);
  }, 60_000);
});

describe("a broken config", () => {
  // The offline provider: a provider of the project's own address would wait for trust (left out, unchecked).
  const BROKEN = `providers:
  local: { kind: { type: catalog, name: test }, url: script.yaml }
models:
  small: { provider: local, class: full, context_window: lots }
`;

  test("is reported before a session is made: agent new, with and without a terminal, starts none", async () => {
    const broken = join(home, "work", "broken");
    mkdirSync(join(broken, ".git"), { recursive: true });
    writeFile(join(broken, ".agent", "config.yaml"), BROKEN);
    const sessions = () => Bun.spawnSync([BINARY, "sessions", "list", "--json"], { cwd: broken, env }).stdout.toString().trim();

    const proc = Bun.spawn([BINARY, "new", "--detach", "hello"], { cwd: broken, env, stdout: "pipe", stderr: "pipe" });
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(1);
    expect(stderr).toContain("the config has errors, so no session was started");
    expect(stderr).toContain(`${join(broken, ".agent", "config.yaml")}:4:`);
    expect(sessions()).toBe("");

    const t = new TermSession([BINARY, "new"], { cwd: broken, env });
    try {
      await t.waitFor("no session was started", "the config error in the terminal");
      expect(await t.proc.exited).toBe(1);
      expect(t.text()).toContain("expected an integer, found \"lots\"");
      expect(sessions()).toBe("");
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe("hints name the config file XDG_CONFIG_HOME points at", () => {
  test("no provider: the help does not send a person to ~/.config/agent when XDG_CONFIG_HOME moves it", async () => {
    rmSync(globalConfig(), { force: true });
    const r = await agent(["exec", "hello"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("No model provider is configured");
    expect(r.stderr).toContain("`agent config path` shows where");
    expect(r.stderr).not.toContain("~/.config/agent");
    const path = await agent(["config", "path"]);
    expect(path.stdout).toContain(globalConfig());
    const help = await agent(["--help"]);
    expect(help.stdout).toContain("$XDG_CONFIG_HOME/agent/config.yaml (else ~/.config/agent/config.yaml");
  });
});

describe("agent config validate", () => {
  test("a theme file that does not exist is a warning naming the file, not OK in silence", async () => {
    writeFile(globalConfig(), "tui:\n  theme: ocean\n");
    const r = await agent(["config", "validate"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${globalConfig()}:2:3: warning: tui.theme: 'ocean': cannot read the theme file`);
    expect(r.stderr).toContain(join(env.XDG_CONFIG_HOME!, "agent", "themes", "ocean.yaml"));
    expect(r.stderr).toContain("it does not exist");
    expect(r.stderr).toContain("until it is fixed the view uses auto");
    expect(r.stdout).toContain("Config OK (0 errors, 1 warning)");
    const json = JSON.parse((await agent(["config", "validate", "--json"])).stdout);
    expect(json.warnings.map((w: { path: string }) => w.path)).toEqual(["tui.theme"]);

    writeFile(join(env.XDG_CONFIG_HOME!, "agent", "themes", "ocean.yaml"), "background: light\n");
    const fixed = await agent(["config", "validate"]);
    expect(fixed.stderr).toBe("");
    expect(fixed.stdout).toContain("Config OK (0 errors, 0 warnings)");
  });

  test("a secret typed into the file is a warning; a ${VAR} reference is not", async () => {
    writeFile(
      globalConfig(),
      `providers:
  local:
    kind: { type: custom_b_compatible }
    url: http://127.0.0.1:9/v1
    auth: { type: static_key, key: sk-typed-into-the-file-0123456789 }
  other:
    kind: { type: custom_b_compatible }
    url: http://127.0.0.1:9/v1
    auth: { type: static_key, key: "\${OTHER_API_KEY}" }
`,
    );
    const r = await agent(["config", "validate"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${globalConfig()}:5:`);
    expect(r.stderr).toContain("warning: providers.local.auth.key: is a secret written into the file");
    expect(r.stderr).not.toContain("providers.other");
    // The warning never repeats the secret.
    expect(r.stderr).not.toContain("sk-typed-into-the-file");
    expect(r.stdout).toContain("Config OK (0 errors, 1 warning)");
  });

  test("two project config files: an error, and not also 'No config file found'", async () => {
    rmSync(globalConfig(), { force: true });
    writeFile(join(project, ".agent", "config.yaml"), "{}\n");
    writeFile(join(project, ".agent", "config.toml"), "");
    try {
      const r = await agent(["config", "validate"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("two project config files exist");
      expect(r.stdout).not.toContain("No config file found");
      expect(r.stdout).toContain("Config has problems: 1 error");
    } finally {
      rmSync(join(project, ".agent"), { recursive: true, force: true });
    }
  });
});
