// A real terminal for end-to-end tests: the program runs on a pseudo-terminal (Bun.spawn with
// `terminal`), its output feeds @xterm/headless, and tests read the screen as a person would. Waits are
// on screen content with a deadline, never on time.
import { Terminal as XTerm } from "@xterm/headless";

export interface TermOptions {
  cwd: string;
  env: Record<string, string>;
  cols?: number;
  rows?: number;
  /** The background (#rrggbb) reported to an OSC 11 query; without it the query goes unanswered, as in terminals that lack it. */
  background?: string;
}

export class TermSession {
  readonly xterm: XTerm;
  readonly proc: Bun.Subprocess;
  private watchers = new Set<() => void>();
  /** Checked on every chunk of output as it arrives, before the emulator draws it (see writeOnOutput). */
  private outputWatchers = new Set<() => void>();
  /** Everything the program wrote, as plain bytes (for debugging a failed wait). */
  raw = "";

  constructor(argv: string[], options: TermOptions) {
    const cols = options.cols ?? 100;
    const rows = options.rows ?? 40;
    this.xterm = new XTerm({ cols, rows, scrollback: 5000, allowProposedApi: true });
    const decoder = new TextDecoder();
    this.proc = Bun.spawn(argv, {
      cwd: options.cwd,
      env: options.env,
      terminal: {
        cols,
        rows,
        data: (_t, data) => {
          this.raw += decoder.decode(data, { stream: true });
          for (const w of this.outputWatchers) w();
          this.xterm.write(data, () => {
            for (const w of this.watchers) w();
          });
        },
      },
    });
    // Like a real terminal, the emulator answers the program's queries (device attributes, and the
    // background color when one is given) on the program's input.
    this.xterm.onData((reply) => this.proc.terminal?.write(reply));
    const background = options.background;
    if (background) {
      const [r, g, b] = [1, 3, 5].map((i) => background.slice(i, i + 2).repeat(2));
      this.xterm.parser.registerOscHandler(11, (data) => {
        if (data !== "?") return false;
        this.proc.terminal?.write(`\x1b]11;rgb:${r}/${g}/${b}\x1b\\`);
        return true;
      });
    }
  }

  /** The whole buffer (scrollback and screen), one string per row, trailing spaces trimmed. */
  lines(): string[] {
    const buf = this.xterm.buffer.active;
    const out: string[] = [];
    for (let i = 0; i < buf.length; i++) out.push(buf.getLine(i)?.translateToString(true) ?? "");
    return out;
  }

  text(): string {
    return this.lines().join("\n");
  }

  /** The visible screen only. */
  screen(): string {
    const buf = this.xterm.buffer.active;
    const out: string[] = [];
    for (let i = 0; i < this.xterm.rows; i++) out.push(buf.getLine(buf.viewportY + i)?.translateToString(true) ?? "");
    return out.join("\n");
  }

  write(data: string): void {
    this.proc.terminal!.write(data);
  }

  /**
   * Writes `data` the moment the program's output (its escape sequences left out) contains `text`, in the
   * PTY's data callback, before the emulator has even drawn it: a key pressed as early as possible after
   * something appears. Resolves once written; rejects after the deadline.
   */
  writeOnOutput(text: string, data: string, deadlineMs = 60_000): Promise<void> {
    const shown = () => this.raw.replace(/\x1b\[[0-9;?]*[ -\/]*[@-~]/g, "").includes(text);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.outputWatchers.delete(watch);
        reject(new Error(`waited for '${text}' to be written; the screen shows:\n${this.screen()}`));
      }, deadlineMs);
      const watch = () => {
        if (!shown()) return;
        clearTimeout(timer);
        this.outputWatchers.delete(watch);
        this.write(data);
        resolve();
      };
      this.outputWatchers.add(watch);
      watch();
    });
  }

  /** Resizes the terminal, as dragging a window's edge does (the emulator re-wraps, the program gets SIGWINCH). */
  resize(cols: number, rows = this.xterm.rows): void {
    this.xterm.resize(cols, rows);
    this.proc.terminal!.resize(cols, rows);
  }

  /** Resolves when `check` holds for the screen (checked after every write); rejects after the deadline. */
  waitFor(check: string | RegExp | ((t: TermSession) => boolean), what = String(check), deadlineMs = 20_000): Promise<void> {
    const test = typeof check === "function" ? () => check(this) : typeof check === "string" ? () => this.text().includes(check) : () => check.test(this.text());
    return new Promise((resolve, reject) => {
      if (test()) return resolve();
      const timer = setTimeout(() => {
        this.watchers.delete(watch);
        reject(new Error(`waited for ${what}; the screen shows:\n${this.screen()}`));
      }, deadlineMs);
      const watch = () => {
        if (!test()) return;
        clearTimeout(timer);
        this.watchers.delete(watch);
        resolve();
      };
      this.watchers.add(watch);
    });
  }

  async close(): Promise<void> {
    try {
      this.proc.kill();
    } catch {
      // already gone
    }
    await this.proc.exited;
    this.proc.terminal?.close();
  }
}
