// Holds the view state outside React and decides what is printed once (Ink's <Static>) and what stays
// live. Records arrive in frames; the screen is told once per frame. While the history of an attach is
// replayed nothing is drawn; at the end only about the newest HISTORY_LINES lines are printed, so attaching
// to a session with a 100k-line history costs one short write (rows written in one piece, not <Static>'s
// per-cell output, when the view writes blocks: see print). After a resync (daemon restart, reset) blocks
// already printed are recognised by id and not printed twice.
import { contextTokens } from "../src/agent/compaction/estimate.ts";
import type { SyncRecord } from "../src/protocol/sync-record.ts";
import type { SyncSnapshotBody } from "../src/protocol/sync-shapes.ts";
import { highlighterLoaded, whenHighlighterLoads } from "./highlight.ts";
import type { HelpTable } from "./slash.ts";
import { lineCount, tailLines } from "./tail-lines.ts";
import { applyRecords, applySnapshot, emptyViewState, type Block, type ViewState } from "./view-state.ts";

/** Lines of history printed on attach (older blocks are counted, not drawn). */
export const HISTORY_LINES = 1000;

/** The shortest time between two redraws. */
export const FRAME_MS = 66;

/** About how many lines a block takes on screen (collapsed), to budget the history printed on attach. */
function blockLines(b: Block): number {
  if (b.kind === "text" || b.kind === "user") return lineCount(b.text) + 1;
  if (b.kind === "tool") return 8;
  if (b.kind === "command") return lineCount(b.message) + 2;
  return 2;
}

/** `ended`: the session was stopped and its daemon is gone; nothing is retried. */
export type HealthState = "connecting" | "connected" | "disconnected" | "ended";

export interface Health {
  state: HealthState;
  /** Why the connection is down (shown in the banner). */
  message: string | null;
  /** Reconnect attempts since the connection was lost. */
  attempts: number;
}

export class ViewStore {
  state: ViewState = emptyViewState();
  /** Everything printed so far, in order; a new array whenever it grows. */
  printed: Block[] = [];
  /**
   * What Ink's <Static> draws: the blocks printed since the last write in one piece (a new array whenever
   * it grows; <Static> tracks its length). Its key is `printEpoch`: after a write in one piece it starts over.
   */
  staticItems: Block[] = [];
  printEpoch = 0;
  /** How many of staticItems <Static> has drawn (the view tells after each commit of its tree). */
  staticDrawn = 0;
  /**
   * The view's rows of blocks (print-blocks.tsx at the current width, theme and details), when it writes
   * blocks in one piece through Ink's stdout write: then the history printed when a catch-up ends and a
   * reflow's reprint skip <Static>'s per-cell output. Null (tests' renderers): everything goes through <Static>.
   */
  rowsOf: ((blocks: Block[]) => string) | null = null;
  /** Rows to write at the view's next commit (null: none). Drawn here, outside React's commit. */
  private toWrite: string | null = null;
  health: Health = { state: "connecting", message: null, attempts: 0 };
  /** True until the records the snapshot announced have all been applied. */
  catchingUp = true;
  /** Context window of each model (from the daemon catalog), for the context meter. */
  contextWindows = new Map<string, number>();
  /** The catalog's models and facets with a line about each, for the /model and /facet menus. */
  catalogModels: { name: string; detail: string }[] = [];
  catalogFacets: { name: string; detail: string }[] = [];
  /** Whether each catalog model can see images (`/image` is refused for one that cannot). */
  visionModels = new Map<string, boolean>();
  private printedIds = new Set<string>();
  private committed = 0;
  private catchUpSeq = 0;
  private localCount = 0;
  private runningCommands = 0;
  /** Notices from this index on wait for the running commands' output (Infinity: none run). */
  private heldFrom = Infinity;
  private listeners = new Set<() => void>();
  private version = 0;
  private scheduled = false;
  private lastNotified = 0;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getVersion = (): number => this.version;

  private measured: { seq: number; tokens: number | null } = { seq: -1, tokens: null };

  /**
   * What the context holds now, in tokens: the newest usage a provider reported for it plus an estimate
   * of what came after (an interrupted answer reports none), or an estimate of the whole conversation when
   * nothing was reported (the demo's provider reports zeros). The system prompt and tool definitions are
   * known only to the daemon, so without any report they are not counted. Null before the first message.
   */
  contextTokens(): number | null {
    const seq = this.state.lastSeq;
    if (this.measured.seq !== seq) {
      const conversation = this.state.conversation;
      const empty = conversation.entries.length <= (conversation.context?.index ?? 0) && !conversation.context?.summary;
      this.measured = { seq, tokens: conversation.entries.length === 0 ? null : empty ? 0 : contextTokens(conversation, () => 0) };
    }
    return this.measured.tokens;
  }

  /** The blocks still changing (or waiting behind one that is): the only part of the screen that re-renders. */
  tail(): Block[] {
    return this.state.blocks.slice(this.committed);
  }

  onSnapshot(snap: SyncSnapshotBody, rebuild: boolean): void {
    if (rebuild) {
      this.state = emptyViewState();
      this.committed = 0;
      if (this.runningCommands) this.heldFrom = 0;
    }
    applySnapshot(this.state, snap);
    this.catchUpSeq = Number(snap.seq);
    this.catchingUp = this.state.lastSeq < this.catchUpSeq;
    this.health = { state: "connected", message: null, attempts: 0 };
    if (!this.catchingUp) this.commit();
    this.changed();
  }

  /** Records as they happen (never the replay of an attach): the terminal channel of the notifications. */
  onLive: ((records: readonly SyncRecord[]) => void) | null = null;

  onRecords(records: readonly SyncRecord[]): void {
    const live = !this.catchingUp;
    applyRecords(this.state, records);
    if (live) this.onLive?.(records);
    if (this.catchingUp && this.state.lastSeq >= this.catchUpSeq) this.finishCatchUp();
    if (!this.catchingUp) this.commit();
    this.changed();
  }

  /** The session was stopped (its daemon exits): the screen is final, not disconnected. */
  onEnded(): void {
    this.health = { state: "ended", message: null, attempts: 0 };
    this.changed();
  }

  onProblem(message: string, attempts: number): void {
    this.health = { state: "disconnected", message, attempts };
    this.changed();
  }

  /** A note of the view's own (not from the session), printed at the end of the conversation. */
  addNotice(level: "info" | "warning", message: string): void {
    this.state.blocks.push({ kind: "notice", id: `note:${++this.localCount}`, level, message, done: true });
    this.commit();
    this.changed();
  }

  /**
   * A session command was sent: notices that arrive before its answer (a tool server it disabled) are
   * held, and printed after the command's own output. Returns where its output goes (for addCommandOutput).
   */
  commandStarted(): number {
    this.runningCommands++;
    this.heldFrom = Math.min(this.heldFrom, this.state.blocks.length);
    return this.state.blocks.length;
  }

  /**
   * Output of a local or session command: at the end of the conversation, or, for a command announced
   * with commandStarted (`startedAt`), before the notices it caused.
   */
  addCommandOutput(input: string, message: string, failed: boolean, help?: HelpTable, startedAt?: number): void {
    const block: Block = { kind: "command", id: `cmd:${++this.localCount}`, input, message, failed, ...(help ? { help } : {}), done: true };
    let at = this.state.blocks.length;
    if (startedAt !== undefined) {
      this.runningCommands = Math.max(0, this.runningCommands - 1);
      if (this.runningCommands === 0) this.heldFrom = Infinity;
      for (let i = Math.max(startedAt, this.committed); i < this.state.blocks.length; i++) {
        if (this.state.blocks[i]!.kind === "notice") {
          at = i;
          break;
        }
      }
    }
    this.state.blocks.splice(at, 0, block);
    this.commit();
    this.changed();
  }

  /** How many times the printed conversation was drawn again from the top (a new width reflows it). */
  reflows = 0;

  /**
   * The terminal changed width: text printed at the old width was re-wrapped by the terminal (or not),
   * so the screen was cleared and everything printed is drawn again at the new width, the newest
   * HISTORY_LINES lines of it, as on attach.
   */
  reflow(): void {
    let budget = HISTORY_LINES;
    let first = this.printed.length;
    while (first > 0 && budget > 0) budget -= blockLines(this.printed[--first]!);
    const kept = this.printed.slice(first);
    if (first > 0) kept.unshift({ kind: "notice", id: `reflow:${this.localCount++}`, level: "info", message: `${first} earlier items are not shown again after the resize`, done: true });
    this.printed = kept;
    this.reflows++;
    this.printEpoch++;
    this.staticDrawn = 0;
    this.staticItems = [];
    this.toWrite = null;
    this.print(kept, true, false);
    this.changed();
  }

  /**
   * Prints the newest turn again (from its prompt on): printed output cannot change, so turning details on
   * shows the last turn's reasoning, tool output and diffs in full below it.
   */
  reprintLastTurn(): void {
    let from = this.printed.length - 1;
    while (from > 0 && this.printed[from]!.kind !== "user") from--;
    const turn = this.printed.slice(Math.max(0, from)).filter((b) => b.kind !== "notice" || !b.id.startsWith("header"));
    if (!turn.length) return;
    const n = ++this.localCount;
    const copies = turn.map((b) => ({ ...b, id: `${b.id}#details${n}` }) as Block);
    this.print([{ kind: "notice", id: `details:${n}`, level: "info", message: "details of the last turn:", done: true }, ...copies], false);
    this.changed();
  }

  private finishCatchUp(): void {
    this.catchingUp = false;
    const fresh: Block[] = [];
    while (this.committed < this.state.blocks.length && this.state.blocks[this.committed]!.done) {
      const b = this.state.blocks[this.committed++]!;
      if (!this.printedIds.has(b.id)) fresh.push(b);
    }
    for (const b of fresh) this.printedIds.add(b.id);
    let budget = HISTORY_LINES;
    let first = fresh.length;
    while (first > 0 && budget > 0) budget -= blockLines(fresh[--first]!);
    const shown = fresh.slice(first);
    const oldest = shown[0];
    // The oldest block shown may alone be longer than what is left of the budget: keep its end.
    if (budget < 0 && oldest?.kind === "text") {
      const cut = tailLines(oldest.text, Math.max(1, lineCount(oldest.text) + budget));
      shown[0] = { ...oldest, text: cut.text };
      shown.unshift({ kind: "notice", id: `cut:${this.localCount++}`, level: "info", message: `… ${cut.hidden} earlier lines of this answer are not shown`, done: true });
    }
    if (first > 0) shown.unshift({ kind: "notice", id: `hidden:${this.localCount++}`, level: "info", message: `${first} earlier items of this session are not shown`, done: true });
    this.print(shown, true);
  }

  /**
   * Prints finished blocks: through <Static>, or (`bulk`, when the view writes blocks in one piece) as rows
   * written at the view's next commit. Blocks handed to <Static> that it has not drawn yet go into those
   * rows first, and blocks printed while they wait go after them, so the order stays; <Static> starts over
   * empty (a new key), which also makes Ink draw the frame at once in that commit, before the rows go above it.
   */
  print(blocks: Block[], bulk: boolean, record = true): void {
    if (!blocks.length) return;
    if (record) this.printed = this.printed.concat(blocks);
    if (this.toWrite !== null && this.rowsOf) {
      const rows = this.rows(blocks);
      this.toWrite += rows;
      return;
    }
    if (!bulk || !this.rowsOf) {
      this.staticItems = this.staticItems.concat(blocks);
      return;
    }
    const waiting = this.staticItems.slice(this.staticDrawn);
    this.staticItems = [];
    this.staticDrawn = 0;
    this.printEpoch++;
    this.toWrite = "";
    const rows = this.rows(waiting.concat(blocks));
    this.toWrite = rows + this.toWrite;
  }

  private building = 0;

  /**
   * rowsOf, during which nothing is taken for writing: Ink's renderToString flushes React's pending work
   * on every root, so the view may commit (and look for rows to write) while they are being built.
   */
  private rows(blocks: Block[]): string {
    this.building++;
    try {
      return this.rowsOf!(blocks);
    } finally {
      this.building--;
    }
  }

  /** The rows to write now, above the frame (the view calls it after each commit of its tree). */
  takeWrite(): string | null {
    if (this.building) return null;
    const rows = this.toWrite;
    this.toWrite = null;
    return rows;
  }

  private waitingForHighlighter = false;

  /** The code highlighter's readiness (tests pass their own). */
  constructor(private readonly highlighter: { loaded(): boolean; whenLoaded(callback: () => void): unknown } = { loaded: highlighterLoaded, whenLoaded: whenHighlighterLoads }) {}

  /**
   * Printed output cannot change, so an answer with a fenced code block in a language waits in the live
   * tail until the grammars have loaded (tens of milliseconds after the first frame), then prints highlighted.
   */
  private waitsForHighlighter(b: Block): boolean {
    if (b.kind !== "text" || this.highlighter.loaded() || !/^\s*(```|~~~)\s*[\w+-]+/m.test(b.text)) return false;
    if (!this.waitingForHighlighter) {
      this.waitingForHighlighter = true;
      this.highlighter.whenLoaded(() => {
        this.waitingForHighlighter = false;
        if (!this.catchingUp) this.commit();
        this.changed();
      });
    }
    return true;
  }

  private commit(): void {
    const fresh: Block[] = [];
    while (this.committed < this.state.blocks.length && this.state.blocks[this.committed]!.done) {
      // A notice a running command may have caused waits for that command's output.
      if (this.committed >= this.heldFrom && this.state.blocks[this.committed]!.kind === "notice") break;
      if (this.waitsForHighlighter(this.state.blocks[this.committed]!)) break;
      const b = this.state.blocks[this.committed++]!;
      if (this.printedIds.has(b.id)) continue;
      this.printedIds.add(b.id);
      fresh.push(b);
    }
    this.print(fresh, false);
  }

  /**
   * Tells the screen of changes at most once per frame (FRAME_MS): a change after a quiet spell shows at
   * once, a stream of tokens redraws 30 times a second rather than once per token.
   */
  changed(): void {
    this.version++;
    if (this.scheduled) return;
    this.scheduled = true;
    const fire = () => {
      this.scheduled = false;
      this.lastNotified = Date.now();
      for (const l of this.listeners) l();
    };
    const wait = this.lastNotified + FRAME_MS - Date.now();
    if (wait <= 0) queueMicrotask(fire);
    else setTimeout(fire, wait);
  }
}
