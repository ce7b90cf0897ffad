// The compiled binary's conversation view in a real terminal (a PTY feeding @xterm/headless): scripted
// projects on the built-in `test` provider, terminal sessions closed and every daemon of their projects
// stopped after the file.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY } from "../helpers/binary.ts";
import { TermSession } from "../tui/terminal.ts";

export interface TuiProject {
  root: string;
  env: Record<string, string>;
  /** The global config dir of the project's XDG_CONFIG_HOME. */
  configDir: string;
}

/** A git project whose provider plays `script`; `globalConfig` is written as the global config.yaml. */
export function scriptedProject(script: string, options: { env?: Record<string, string>; globalConfig?: string } = {}): TuiProject {
  const base = mkdtempSync(join(tmpdir(), "agent-tui-e2e-"));
  const root = join(base, "proj");
  mkdirSync(join(root, ".git"), { recursive: true });
  mkdirSync(join(root, ".agent"));
  writeFileSync(join(root, ".agent", "config.yaml"), "providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\ndefault_permission_matcher: standard\n");
  writeFileSync(join(root, "script.yaml"), script);
  const configDir = join(base, "config", "agent");
  mkdirSync(configDir, { recursive: true });
  if (options.globalConfig) writeFileSync(join(configDir, "config.yaml"), options.globalConfig);
  const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color", ...options.env };
  return { root, env, configDir };
}

/** Terminal sessions of one test file: every one started is closed, every session seen is stopped. */
export class Terminals {
  private readonly open: TermSession[] = [];
  // Every project a terminal ran in: its data root is its own, so `sessions stop --all` there stops exactly
  // the daemons this file started, also those whose session id never reached the screen (a failed test).
  private readonly projects = new Set<TuiProject>();

  start(p: TuiProject, args: string[], background?: string): TermSession {
    const t = new TermSession([BINARY, ...args], { cwd: p.root, env: p.env, background });
    this.open.push(t);
    this.projects.add(p);
    return t;
  }

  /** The session id the view printed (its daemon is stopped at the end with the project's others). */
  sessionOf(t: TermSession, p: TuiProject): string {
    const m = /session (ses_[0-9a-z]+)/.exec(t.text());
    if (!m) throw new Error(`no session id on screen:\n${t.screen()}`);
    this.projects.add(p);
    return m[1]!;
  }

  async closeAll(): Promise<void> {
    for (const t of this.open) await t.close();
    // `sessions stop` waits for its daemons to exit: the projects' stops run side by side.
    await Promise.all([...this.projects].map((p) => Bun.spawn([BINARY, "sessions", "stop", "--all"], { cwd: p.root, env: p.env, stdout: "ignore", stderr: "ignore" }).exited));
  }
}

/** Types text, waits until the editor shows it, then presses Enter as a separate key. */
export async function send(t: TermSession, text: string): Promise<void> {
  t.write(text);
  await t.waitFor((s) => s.screen().includes(`› ${text}`), `the editor to show '${text}'`);
  t.write("\r");
}
