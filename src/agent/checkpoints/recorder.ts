// Restore points of a session's turns. Before a turn's first change to a file the file's content is
// copied (content-addressed, under the session dir) and a `checkpoint_saved` record names it: a file
// tool's files before it runs (read from its arguments, as the permission check reads them); a command's
// (shell, tool servers, extensions) after it ran, from a snapshot of the project taken before it
// (shadow-git.ts). When the turn ends, `checkpoint_settled` records what the agent left each file as,
// so a later difference is known to be someone else's. The state is a fold of the session's events:
// it survives a restart and a resume like the conversation does.
import { lstatSync, readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { READ_ONLY_TOOLS } from "../context/facets.ts";
import type { EngineEvent } from "../events.ts";
import { patchPaths } from "../../tools/edit/patch-parse.ts";
import { isInside } from "../../tools/paths.ts";
import type { Tool, ToolContext } from "../../tools/tool.ts";
import { BlobStore, currentState, type FileState } from "./blob-store.ts";
import { ShadowGit } from "./shadow-git.ts";

/** One turn's restore point: each file's state before the turn's first change, and after the turn. */
export interface TurnCheckpoint {
  turnId: string;
  promptId: string;
  before: Map<string, FileState | null>;
  /** Null until the turn ended (a turn cut off by a crash never settles). */
  after: Map<string, FileState | null> | null;
  undone: boolean;
}

/** Tools that change no files themselves: no snapshot around them (a subagent's own calls are recorded as they run). */
const NO_SNAPSHOT = new Set([...READ_ONLY_TOOLS, "task", "goal_propose", "goal_update", "goal_complete"]);

export interface CallGuard {
  after(): Promise<void>;
}

export class Checkpoints {
  readonly blobs: BlobStore;
  private readonly shadow: ShadowGit | null;
  private readonly turns: TurnCheckpoint[] = [];
  private current: { turnId: string; promptId: string | null; captured: Set<string> } | null = null;
  /** Snapshots run one at a time: they share the shadow store's index. */
  private snapshotChain: Promise<unknown> = Promise.resolve();
  private emit: (e: EngineEvent) => void = () => {};

  constructor(
    dir: string,
    readonly projectRoot: string,
    env: Record<string, string | undefined>,
    initialEvents: Iterable<EngineEvent> = [],
  ) {
    this.blobs = new BlobStore(join(dir, "blobs"));
    this.shadow = ShadowGit.covers(projectRoot) ? new ShadowGit(join(dir, "shadow"), projectRoot, env) : null;
    for (const e of initialEvents) this.apply(e);
    // A turn still open in the journal was cut off (a crash): it gets no more records.
    this.current = null;
  }

  /** Where the session's records go (the session's own stream, also for a subagent's calls). */
  bind(emit: (e: EngineEvent) => void): void {
    this.emit = emit;
  }

  /** Whether changes made by commands can be seen here (a repository around the project, git on PATH). */
  get seesCommands(): boolean {
    return this.shadow !== null;
  }

  /** Folds one event of the session. */
  apply(e: EngineEvent): void {
    switch (e.type) {
      case "turn_started":
        this.current = { turnId: e.turn_id, promptId: null, captured: new Set() };
        return;
      case "user_message":
        if (this.current && this.current.turnId === e.turn_id && this.current.promptId === null) this.current.promptId = e.message.id;
        return;
      case "turn_completed":
        if (this.current?.turnId === e.turn_id) this.current = null;
        return;
      case "checkpoint_saved": {
        let turn = this.turns.find((t) => t.turnId === e.turn_id);
        if (!turn) {
          turn = { turnId: e.turn_id, promptId: e.prompt_id, before: new Map(), after: null, undone: false };
          this.turns.push(turn);
        }
        for (const f of e.files) if (!turn.before.has(f.path)) turn.before.set(f.path, f.before);
        if (this.current?.turnId === e.turn_id) for (const f of e.files) this.current.captured.add(f.path);
        return;
      }
      case "checkpoint_settled": {
        const turn = this.turns.find((t) => t.turnId === e.turn_id);
        if (turn) turn.after = new Map(e.files.map((f) => [f.path, f.after]));
        return;
      }
      case "rewound":
        for (const t of this.turns) if (e.turn_ids.includes(t.turnId)) t.undone = true;
        return;
      default:
        return;
    }
  }

  /** The turns whose file changes are still in place, oldest first. */
  liveTurns(): TurnCheckpoint[] {
    return this.turns.filter((t) => !t.undone);
  }

  /**
   * Called right before a permitted tool call runs: saves the files it names, or snapshots the project
   * for a command. The guard's `after` records what the command changed.
   */
  async beforeCall(call: { call_id: string; name: string; arguments: Record<string, unknown> }, tool: Tool, ctx: ToolContext): Promise<CallGuard | null> {
    try {
      const guard = await this.guard(call, tool, ctx);
      return guard ? { after: () => guard.after().catch((error: unknown) => this.failed(call.name, error)) } : null;
    } catch (error) {
      this.failed(call.name, error);
      return null;
    }
  }

  /** The call runs anyway (the session's storage reports a full disk on its own); the person is told its files have no restore point. */
  private failed(tool: string, error: unknown): void {
    this.emit({ type: "notice", level: "warning", message: `no restore point for the ${tool} call: ${(error as Error)?.message ?? String(error)}; /undo and /rewind cannot put back what it changed` });
  }

  private async guard(call: { call_id: string; name: string; arguments: Record<string, unknown> }, tool: Tool, ctx: ToolContext): Promise<CallGuard | null> {
    const turn = this.current;
    if (!turn || turn.promptId === null) return null;
    const named = changedPaths(tool, call.arguments, ctx);
    if (named) {
      // The file tools change nothing outside the project (they refuse): nothing there is copied either.
      const inside = named.filter((p) => isInside(this.projectRoot, p));
      this.save(turn, call.call_id, inside.map((p) => ({ path: p, read: () => readNow(p) })));
      return null;
    }
    if (NO_SNAPSHOT.has(call.name) || !this.shadow) return null;
    const shadow = this.shadow;
    const before = await this.serial(() => shadow.snapshot());
    if (!before) return null;
    return {
      after: async () => {
        const afterTree = await this.serial(() => shadow.snapshot());
        if (!afterTree) return;
        const changes = await shadow.diff(before, afterTree);
        const read: { path: string; content: { bytes: Uint8Array; mode: number } | null | "other" }[] = [];
        for (const c of changes) {
          const path = join(this.projectRoot, c.path);
          if (turn.captured.has(path)) continue;
          const bytes = c.before ? await shadow.blob(c.before.blob) : null;
          // A copy the store cannot give back is no restore point: the file is left out, not saved empty.
          read.push({ path, content: c.before ? (bytes ? { bytes, mode: c.before.mode } : "other") : null });
        }
        this.save(turn, call.call_id, read.map((r) => ({ path: r.path, read: () => r.content })));
      },
    };
  }

  /** At the end of a turn of this session: the state each of its files was left in. */
  settle(turnId: string): void {
    const turn = this.turns.find((t) => t.turnId === turnId);
    if (!turn || turn.after) return;
    const files = [...turn.before.keys()].map((path) => {
      const now = currentState(path);
      return { path, after: now === "other" ? null : now };
    });
    this.emit({ type: "checkpoint_settled", turn_id: turnId, files });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.snapshotChain.then(work, work);
    this.snapshotChain = run.catch(() => {});
    return run;
  }

  private save(turn: { turnId: string; promptId: string | null; captured: Set<string> }, callId: string, files: { path: string; read: () => { bytes: Uint8Array; mode: number } | null | "other" }[]): void {
    const saved: { path: string; before: FileState | null }[] = [];
    for (const f of files) {
      if (turn.captured.has(f.path)) continue;
      const content = f.read();
      if (content === "other") continue;
      saved.push({ path: f.path, before: content ? this.blobs.put(content.bytes, content.mode) : null });
      turn.captured.add(f.path);
    }
    if (saved.length > 0) this.emit({ type: "checkpoint_saved", turn_id: turn.turnId, prompt_id: turn.promptId!, call_id: callId, files: saved });
  }
}

/** The files a file tool will change, from its arguments as its permission check reads them; null: not a file tool. */
export function changedPaths(tool: Tool, args: Record<string, unknown>, ctx: Pick<ToolContext, "cwd">): string[] | null {
  const as = tool.permissionAs?.(args as never) ?? { tool: tool.name, input: args };
  if (as.tool !== "write" && as.tool !== "edit") return null;
  const at = (p: string) => (isAbsolute(p) ? p : resolve(ctx.cwd, p));
  if (typeof as.input.patch === "string") {
    try {
      return patchPaths(as.input.patch).map(at);
    } catch {
      return []; // the tool refuses a patch it cannot read and changes nothing
    }
  }
  return typeof as.input.path === "string" ? [at(as.input.path)] : [];
}

function readNow(path: string): { bytes: Uint8Array; mode: number } | null | "other" {
  try {
    const st = lstatSync(path);
    if (!st.isFile()) return "other";
    return { bytes: readFileSync(path), mode: st.mode & 0o7777 };
  } catch {
    return null;
  }
}
