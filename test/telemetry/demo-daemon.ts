// A real `agent daemon --demo` process (the source through bun, or the compiled binary) in a sandboxed
// home whose global config the test writes, for the telemetry tests that need whole processes.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const TOKEN = "dmn_telemetry-test-token-0123456789abcdefghij";

export interface Sandbox {
  base: string;
  env: Record<string, string>;
  project: string;
}

/** A temp HOME/XDG with `globalConfig` as the global config.yaml (none when null) and a git project. */
export function sandbox(globalConfig: string | null, extraEnv: Record<string, string> = {}): Sandbox {
  const base = mkdtempSync(join(tmpdir(), "agent-telemetry-proc-"));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: base,
    XDG_CONFIG_HOME: join(base, "config"),
    XDG_DATA_HOME: join(base, "data"),
    ...extraEnv,
  };
  if (globalConfig !== null) {
    mkdirSync(join(base, "config", "agent"), { recursive: true });
    writeFileSync(join(base, "config", "agent", "config.yaml"), globalConfig);
  }
  const project = join(base, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  return { base, env, project };
}

/** Starts `command daemon ... --demo` in the sandbox and waits for its ready line. */
export async function spawnDemoDaemon(command: string[], box: Sandbox): Promise<{ proc: Bun.Subprocess<"ignore", "pipe", "pipe">; url: string }> {
  const credDir = join(box.base, "cred");
  mkdirSync(credDir, { mode: 0o700 });
  const cred = join(credDir, "credential.json");
  writeFileSync(cred, JSON.stringify({ token: TOKEN }));
  chmodSync(cred, 0o600);
  const proc = Bun.spawn([...command, "daemon", "--session-dir", join(box.base, "session"), "--credential-file", cred, "--project", box.project, "--demo"], { cwd: box.project, env: box.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`daemon exited early: ${await new Response(proc.stderr).text()}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { proc, url: `http://127.0.0.1:${(JSON.parse(text.split("\n")[0]!) as { port: number }).port}` };
}

export const authed = (url: string, init: RequestInit = {}) => fetch(url, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json", ...(init.headers ?? {}) } });

/** Sends a prompt and waits until the daemon's turn is over (the demo answers without a model). */
export async function promptAndWait(url: string, text: string): Promise<void> {
  const accepted = await authed(`${url}/prompt`, { method: "POST", body: JSON.stringify({ text }) });
  if (accepted.status !== 202) throw new Error(`POST /prompt answered ${accepted.status}: ${await accepted.text()}`);
  for (;;) {
    const sync = (await (await authed(`${url}/sync`)).json()) as { turn: { busy: boolean; queue: unknown[] } };
    if (!sync.turn.busy && sync.turn.queue.length === 0) return;
    await Bun.sleep(20);
  }
}
