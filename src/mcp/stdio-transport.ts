// The stdio transport for a local tool server. The SDK's own stdio transport always merges a default
// environment into the child's, and the config promises a CLEARED environment, so this one spawns the
// child itself (Bun.spawn) and speaks the same newline-delimited JSON-RPC.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Subprocess } from "bun";
import type { McpLogSink } from "./types.ts";

/** What `pass_env` copies when it is omitted. */
export const DEFAULT_PASS_ENV = ["HOME", "PATH", "LANG", "TMPDIR"] as const;

/**
 * Beside each child runs a small `sh` watchdog in a process group of its own, reading a pipe only the agent
 * writes to. When the agent dies, even by SIGKILL, the kernel closes that pipe: the watchdog reads EOF and
 * ends the child's group (SIGTERM, 2 s, SIGKILL), so a server still working on a call does not outlive us.
 * The child itself is spawned exactly as configured (its environment stays as cleared). When the child
 * exits, the watchdog is stopped, so it never signals a group id the system has given to someone else.
 * (PR_SET_PDEATHSIG cannot be set from Bun between fork and exec.)
 */
const WATCHDOG = 'trap "" INT HUP; while read -r _; do :; done; kill -TERM "-$1" 2>/dev/null; sleep 2; kill -KILL "-$1" 2>/dev/null';

/** How long a child gets to exit after its stdin closes, and again after SIGTERM. */
const EXIT_GRACE_MS = 2000;

export interface StdioServerOptions {
  server: string;
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  /** null/undefined: the default set; []: nothing; a list: exactly those names. */
  passEnv: readonly string[] | null | undefined;
  logStderr: boolean;
  logStdout: boolean;
  cwd: string;
  log: McpLogSink;
  /** The agent's own environment, copied from by `pass_env`. */
  parentEnv: Readonly<Record<string, string | undefined>>;
}

/** The child's environment: cleared, then the `pass_env` names copied, then `env` overrides. */
export function childEnvironment(
  passEnv: readonly string[] | null | undefined,
  env: Readonly<Record<string, string>>,
  parentEnv: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of passEnv ?? DEFAULT_PASS_ENV) {
    const value = parentEnv[name];
    if (value !== undefined) out[name] = value;
  }
  return { ...out, ...env };
}

export class StdioChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child?: Subprocess<"pipe", "pipe", "pipe" | "ignore">;
  /** The watchdog beside the child (see WATCHDOG). */
  private watchdog?: Subprocess<"pipe", "ignore", "ignore">;
  private closed = false;
  /** Set when the child exited on its own (not through close()). */
  exitReason?: string;
  /** A write failed: the child was going away by itself, even if close() came before its exit was seen. */
  private writeFailed = false;

  constructor(private readonly options: StdioServerOptions) {}

  /** The child's process id while it runs (tests check that it is gone after close). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    const o = this.options;
    const env = childEnvironment(o.passEnv, o.env, o.parentEnv);
    try {
      // detached: the child leads its own process group, so close() can signal a wrapper (npx, sh) and
      // everything it started, and a terminal's Ctrl-C reaches the agent, not the server.
      this.child = Bun.spawn([o.command, ...o.args], {
        cwd: o.cwd,
        env,
        stdin: "pipe",
        stdout: "pipe",
        stderr: o.logStderr ? "pipe" : "ignore",
        detached: true,
      });
    } catch (error) {
      const why = error instanceof Error && "code" in error && error.code === "ENOENT" ? "command not found" : String(error);
      throw new Error(`cannot start \`${o.command}\`: ${why}`);
    }
    const child = this.child;
    this.startWatchdog(child.pid);
    void this.readLines(child.stdout, (line) => this.onStdoutLine(line));
    if (child.stderr instanceof ReadableStream) {
      void this.readLines(child.stderr, (line) => o.log({ server: o.server, source: "stderr", level: "info", message: line }));
    }
    void child.exited.then((code) => {
      this.stopWatchdog();
      if (!this.closed || this.writeFailed) this.exitReason = `the server process exited (code ${code})${o.logStderr ? "; its stderr is in the session log" : ""}`;
      this.closed = true;
      this.onclose?.();
    });
  }

  /**
   * Why the child ended, waiting up to `ms` for its exit: a write to a child that is exiting fails (EPIPE)
   * before its exit is seen, and the exit (with the pointer to its stderr) is the better reason.
   */
  async exitReasonWithin(ms: number): Promise<string | undefined> {
    if (this.child && !this.exitReason) await exitsWithin(this.child, ms);
    await Bun.sleep(0);
    return this.exitReason;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.child;
    if (!child || this.closed) throw new Error("the server process is not running");
    try {
      child.stdin.write(`${JSON.stringify(message)}\n`);
      await child.stdin.flush();
    } catch (error) {
      this.writeFailed = true;
      throw error;
    }
  }

  /** Closes stdin (the MCP shutdown signal), then SIGTERM, then SIGKILL to the child's process group. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.closed = true;
    if (child.exitCode === null && child.signalCode === null) {
      try {
        await child.stdin.end();
      } catch {
        // The pipe is already broken: the child is exiting anyway.
      }
      if (!(await exitsWithin(child, EXIT_GRACE_MS))) {
        signalGroup(child.pid, "SIGTERM");
        await exitsWithin(child, EXIT_GRACE_MS);
      }
    }
    await this.reapGroup(child.pid);
    await child.exited;
    this.stopWatchdog();
  }

  private startWatchdog(pgid: number): void {
    try {
      this.watchdog = Bun.spawn(["/bin/sh", "-c", WATCHDOG, "agent-mcp-watchdog", String(pgid)], { stdin: "pipe", stdout: "ignore", stderr: "ignore", detached: true, env: {} });
      this.watchdog.unref();
    } catch (error) {
      this.options.log({ server: this.options.server, source: "manager", level: "warn", message: `no watchdog for the server process: ${String(error)}` });
    }
  }

  private stopWatchdog(): void {
    const watchdog = this.watchdog;
    this.watchdog = undefined;
    if (watchdog && watchdog.exitCode === null) watchdog.kill("SIGKILL");
  }

  /** Whatever is left in the child's group (the child, or a server its wrapper started) is killed and gone on return. */
  private async reapGroup(pid: number): Promise<void> {
    signalGroup(pid, "SIGKILL");
    const until = Date.now() + EXIT_GRACE_MS;
    while (groupAlive(pid) && Date.now() < until) await Bun.sleep(10);
  }

  private onStdoutLine(line: string): void {
    let message: JSONRPCMessage | undefined;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch {
      // Not protocol traffic: a server printing to stdout by mistake. Kept only when asked for.
      if (this.options.logStdout) this.options.log({ server: this.options.server, source: "stdout", level: "info", message: line });
      return;
    }
    this.onmessage?.(message);
  }

  private async readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
    const decoder = new TextDecoder();
    let buffered = "";
    try {
      for await (const chunk of stream) {
        buffered += decoder.decode(chunk, { stream: true });
        let at = buffered.indexOf("\n");
        while (at !== -1) {
          const line = buffered.slice(0, at).replace(/\r$/, "");
          buffered = buffered.slice(at + 1);
          if (line.trim() !== "") onLine(line);
          at = buffered.indexOf("\n");
        }
      }
    } catch {
      // The stream ends with the process; its exit is reported through `exited`.
    }
    if (buffered.trim() !== "") onLine(buffered);
  }
}

function exitsWithin(child: Subprocess, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([child.exited.then(() => true), timeout]).finally(() => clearTimeout(timer));
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}
