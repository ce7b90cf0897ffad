// One persistent shell process per session. Each command is written to a file and sourced by the shell
// itself, so `cd`, exports and functions carry over to the next call. The shell leads its own process
// group (spawned detached, so setsid), and every command it runs is in that group: cancelling,
// timing out or flooding the output kills the whole group, which is the only way to stop a command tree
// without leaving orphans. The next call then starts a new shell, sources the init script again and
// restores the working directory and exported variables saved after the last completed command.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { ShellDialect } from "./shell-dialect.ts";
import { shellEnvironment, type ShellEnvSource } from "./shell-env.ts";
import { readCapturedOutput, type CapturedOutput } from "./shell-output.ts";

/** A command whose output file grows past this is killed: the cap keeps a runaway loop off the disk. */
export const SHELL_MAX_CAPTURE_BYTES = 64 * 1024 * 1024;
const CAPTURE_POLL_MS = 250;

export type StepEnd =
  /** The step finished and the shell is still running. */
  | { kind: "completed"; exitCode: number }
  /** The shell process itself ended during the step (`exit`, `set -e`, a crash). */
  | { kind: "shell_exited"; exitCode: number | null; signal: string | null }
  | { kind: "cancelled" }
  | { kind: "timed_out" }
  | { kind: "output_limit" };

export interface StepOutcome {
  end: StepEnd;
  output: CapturedOutput;
}

export interface ShellStart {
  /** True when an earlier shell of this session died and this one restored its snapshot. */
  restarted: boolean;
  /** The init script's step, when one is configured. */
  init?: StepOutcome;
}

export interface ShellSessionOptions {
  dialect: ShellDialect;
  projectRoot: string;
  /** Absolute path of `agent_behavior.shell.init_script`, sourced once in every new shell. */
  initScript: string | null;
  env?: ShellEnvSource;
  /**
   * Runs the shell inside a sandbox (src/sandbox): the command line that wraps the shell's, given the
   * session's scratch directory, which stays writable and becomes TMPDIR.
   */
  wrap?: (argv: string[], tempDir: string) => string[];
}

export interface StepLimits {
  timeoutMs: number;
  signal: AbortSignal;
  /** Where the whole output goes when it is over the cap (readCapturedOutput). */
  keepAs?: string;
}

interface RunningShell {
  proc: Subprocess<"pipe", "pipe", "pipe">;
  nonce: string;
  /** Marker lines seen on stdout, by step number: the step's exit status. */
  statuses: Map<number, number>;
  /** Woken whenever stdout delivers a marker. */
  notify: () => void;
  /** Settles when the shell's stdout closes (every marker it printed has been read). */
  stdoutDone: Promise<void>;
}

export class ShellSession {
  private readonly options: ShellSessionOptions;
  private shell: RunningShell | undefined;
  private dir: string | undefined;
  private steps = 0;
  private shellsStarted = 0;
  private hasSnapshot = false;
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: ShellSessionOptions) {
    this.options = options;
  }

  get dialect(): ShellDialect {
    return this.options.dialect;
  }

  /** True while a shell process is alive (its state carries over to the next command). */
  get running(): boolean {
    return this.shell !== undefined;
  }

  /** Runs one command, starting (or restarting) the shell first when needed. Calls are serialized. */
  run(command: string, limits: StepLimits): Promise<{ start?: ShellStart; step?: StepOutcome }> {
    const next = this.queue.then(() => this.runNow(command, limits));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Kills the shell and everything it started, and removes its temporary files. */
  async close(): Promise<void> {
    this.closed = true;
    await this.kill();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  private async runNow(command: string, limits: StepLimits): Promise<{ start?: ShellStart; step?: StepOutcome }> {
    if (this.closed) throw new Error("the session's shell was closed");
    let start: ShellStart | undefined;
    if (!this.shell) {
      start = await this.startShell(limits);
      if (start.init && start.init.end.kind !== "completed") return { start };
    }
    const step = await this.step(command, limits, limits.keepAs);
    return { start, step };
  }

  private async startShell(limits: StepLimits): Promise<ShellStart> {
    this.dir ??= mkdtempSync(join(tmpdir(), "agent-shell-"));
    const wrap = this.options.wrap;
    let env = shellEnvironment(this.options.env);
    if (wrap) {
      // Outside the scratch directory the sandbox's /tmp is read-only.
      const tmp = join(this.dir, "tmp");
      mkdirSync(tmp, { recursive: true });
      env = { ...env, TMPDIR: tmp };
    }
    const proc = Bun.spawn(wrap ? wrap(this.options.dialect.argv, this.dir) : this.options.dialect.argv, {
      cwd: this.options.projectRoot,
      env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
    const shell: RunningShell = { proc, nonce: crypto.randomUUID().replaceAll("-", ""), statuses: new Map(), notify: () => {}, stdoutDone: Promise.resolve() };
    shell.stdoutDone = this.readMarkers(shell).catch(() => undefined);
    this.shell = shell;
    // The shell's own stderr carries nothing a command printed (that goes to the step's file); drain it.
    void new Response(proc.stderr).arrayBuffer().catch(() => undefined);
    const start: ShellStart = { restarted: this.shellsStarted > 0 };
    this.shellsStarted++;
    if (this.options.initScript) {
      start.init = await this.step(null, limits);
      if (start.init.end.kind !== "completed") return start;
    }
    if (this.hasSnapshot) this.write(shell, this.options.dialect.restore(join(this.dir, "state")));
    return start;
  }

  private async readMarkers(shell: RunningShell): Promise<void> {
    const decoder = new TextDecoder();
    let buffered = "";
    const pattern = new RegExp(`^${shell.nonce}_(\\d+) (-?\\d+)\\r?$`);
    for await (const chunk of shell.proc.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const match = pattern.exec(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
        if (match) {
          shell.statuses.set(Number(match[1]), Number(match[2]));
          shell.notify();
        }
      }
    }
  }

  private write(shell: RunningShell, text: string): void {
    try {
      shell.proc.stdin.write(text);
      shell.proc.stdin.flush();
    } catch {
      // The shell is gone; the step sees it exit.
    }
  }

  /** Sources `command` (or the init script when null) and waits for its marker, the shell's end, or a limit. */
  private async step(command: string | null, limits: StepLimits, keepAs?: string): Promise<StepOutcome> {
    const shell = this.shell!;
    const dir = this.dir!;
    const n = ++this.steps;
    const out = join(dir, `out-${n}`);
    let script = this.options.initScript!;
    if (command !== null) {
      script = join(dir, `cmd-${n}${this.options.dialect.scriptExtension}`);
      writeFileSync(script, command.endsWith("\n") ? command : `${command}\n`);
    }
    this.write(shell, this.options.dialect.step({ script, out, state: join(dir, "state") }, `${shell.nonce}_${n}`));
    const end = await this.waitForStep(shell, n, out, limits);
    if (end.kind === "completed") this.hasSnapshot = true;
    else await this.kill();
    const output = await readCapturedOutput(out, keepAs);
    rmSync(out, { force: true });
    if (command !== null) rmSync(script, { force: true });
    return { end, output };
  }

  private waitForStep(shell: RunningShell, n: number, out: string, limits: StepLimits): Promise<StepEnd> {
    return new Promise<StepEnd>((resolve) => {
      const finish = (end: StepEnd) => {
        clearTimeout(timer);
        clearInterval(poll);
        limits.signal.removeEventListener("abort", onAbort);
        shell.notify = () => {};
        resolve(end);
      };
      const onAbort = () => finish({ kind: "cancelled" });
      const timer = setTimeout(() => finish({ kind: "timed_out" }), limits.timeoutMs);
      const poll = setInterval(() => {
        if (Bun.file(out).size > SHELL_MAX_CAPTURE_BYTES) finish({ kind: "output_limit" });
      }, CAPTURE_POLL_MS);
      shell.notify = () => {
        const status = shell.statuses.get(n);
        if (status !== undefined) finish({ kind: "completed", exitCode: status });
      };
      if (limits.signal.aborted) return onAbort();
      limits.signal.addEventListener("abort", onAbort, { once: true });
      shell.notify();
      // The marker may still be in the pipe when the process ends: decide once stdout is drained.
      void Promise.all([shell.proc.exited, shell.stdoutDone]).then(([code]) => {
        const status = shell.statuses.get(n);
        if (status !== undefined) finish({ kind: "completed", exitCode: status });
        else {
          const signal = shell.proc.signalCode;
          finish({ kind: "shell_exited", exitCode: signal ? null : code, signal: signal ? String(signal) : null });
        }
      });
    }).then(async (end) => {
      if (end.kind === "shell_exited" || (end.kind === "completed" && shell.proc.exitCode !== null)) this.shell = undefined;
      return end;
    });
  }

  /** SIGKILL to the shell's process group: the shell and every command it started. */
  private async kill(): Promise<void> {
    const shell = this.shell;
    this.shell = undefined;
    if (!shell) return;
    try {
      process.kill(-shell.proc.pid, "SIGKILL");
    } catch {
      shell.proc.kill("SIGKILL");
    }
    await shell.proc.exited;
  }
}
