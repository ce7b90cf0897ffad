// Starts the conversation view on a terminal for one session, given a DaemonClient (a local daemon, or
// a remote one through the gateway proxy) and, for local sessions, a way to restart a dead daemon.
// Resolves with the exit code when the user detaches; the session keeps running.
import wrapAnsi from "wrap-ansi";
import { render } from "ink";
import type { DaemonClient } from "../src/client/daemon-client.ts";
import { App } from "./app.tsx";
import { Connection } from "./connection.ts";
import { compactTokens } from "./components/status-line.tsx";
import { PromptHistory } from "./editor-model.ts";
import { loadHighlighter } from "./highlight.ts";
import { appendPromptHistory, loadPromptHistory } from "./prompt-history-file.ts";
import { SessionActions, describeError } from "./session-actions.ts";
import { readFacetColors, type FacetColorTable } from "./theme/facet-colors.ts";
import { terminalTheme } from "./theme/resolve.ts";
import { configuredTuiField } from "./theme/config.ts";
import { resolveKeys } from "./keys/keymap.ts";
import { ThemeProvider } from "./theme/theme.ts";
import { ViewStore } from "./view-store.ts";
import { rawBeforeFirstFrame } from "./raw-before-first-frame.ts";
import { alertForm, terminalAlert, terminalEvents } from "./terminal-alert.ts";

export interface TuiOptions {
  /** The /kill-session confirmation text, when the session is resumed some other way than `agent continue`. */
  killQuestion?: string;
  /** The session's client, or how to get it: called after the first frame, so the screen shows at once while a local daemon starts. */
  client: DaemonClient | (() => Promise<DaemonClient>);
  sessionId: string;
  /** Where the session runs, for the header ("local daemon pid 123", "gateway host"). */
  where: string;
  recover?: () => Promise<DaemonClient | null>;
  /** Where prompt history is kept across views (none: this view's only). */
  historyFile?: string;
  /** A first prompt to send once attached (`agent new PROMPT`). */
  initialPrompt?: string;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  /** The command that returns to the session, named in the line printed on leaving. */
  reattach: string;
  /** Ctrl+C interrupts a running turn first (local sessions); the gateway spec's single Ctrl+C detach otherwise. */
  ctrlCInterrupts?: boolean;
  /** The project's files for `@` mentions (local sessions: the file catalog of the session's project). */
  files?: () => Promise<readonly string[]>;
  /** Where the config files are looked for (local sessions): a change is pointed out, since the running session keeps its config. */
  config?: { cwd: string; env: Record<string, string | undefined> };
  /** `/reload` (local sessions): stops the session's daemon and starts it again, resumed, with the config files as they are now. */
  restartDaemon?: () => Promise<DaemonClient>;
}

/**
 * The terminal channel of the notifications (tui/terminal-alert.ts): `notify_events` of this machine's
 * config files (the person's terminal), read after the first frame with the full loader.
 */
async function ringOnAlerts(out: NodeJS.WriteStream, store: ViewStore, config: { cwd: string; env: Record<string, string | undefined> }): Promise<void> {
  const { loadConfig } = await import("../src/config/load.ts");
  const events = terminalEvents(loadConfig({ cwd: config.cwd, env: config.env }).config.notify_events);
  const form = alertForm(config.env);
  if (events.size === 0) return;
  store.onLive = (records) => {
    const alert = terminalAlert(records, events, form);
    if (alert) out.write(alert);
  };
}

/**
 * A line printed after the view is gone, broken between words at the terminal's width: left to the
 * terminal it is cut wherever the column ends, mid-word (`agent continue ses_…` split in two).
 */
export function byWords(text: string, columns: number | undefined): string {
  return columns && columns > 0 ? wrapAnsi(text, columns, { hard: true }) : text;
}

/** The one line printed on leaving the view: the session, whether a turn still runs, and how to return. */
export function leavingLine(sessionId: string, state: { stopped: boolean; busy: boolean }, reattach: string): string {
  if (state.stopped) return `Session ${sessionId} stopped.`;
  const turn = state.busy ? "a turn is still running" : "no turn is running";
  return `Detached from session ${sessionId}; it keeps running (${turn}). Return to it with: ${reattach}`;
}

export async function runTui(options: TuiOptions): Promise<number> {
  // Before Ink takes stdin: asking the terminal for its background reads the reply from stdin.
  const { theme, problem } = await terminalTheme({ stdin: options.stdin ?? process.stdin, stdout: options.stdout ?? process.stdout });
  const store = new ViewStore();
  store.print([{ kind: "notice", id: "header", level: "info", message: `session ${options.sessionId} · ${options.where} · /help for commands, Ctrl+D detaches`, done: true }], false);
  if (problem) store.print([{ kind: "notice", id: "header:theme", level: "error", message: problem, done: true }], false);
  // tui.keys of the local config files (a remote view uses this machine's too: the keys are the person's).
  const { keys, problems: keyProblems } = resolveKeys(await configuredTuiField(options.config?.cwd ?? process.cwd(), options.config?.env ?? process.env, "keys").catch(() => null));
  keyProblems.forEach((message, i) => store.print([{ kind: "notice", id: `header:keys:${i}`, level: "error", message, done: true }], false));
  const facetColors: FacetColorTable = new Map();
  const stop = new AbortController();
  const conn = new Connection(null, store, { recover: options.recover });
  const actions = new SessionActions(conn, store, stop.signal);
  const file = options.historyFile;
  const history = new PromptHistory(file ? loadPromptHistory(file) : [], file ? (text) => appendPromptHistory(file, text) : undefined);
  if (options.initialPrompt) history.add(options.initialPrompt);
  let exit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (exit = resolve));
  let draft = "";
  let killed = false;
  // A key pressed as soon as the first frame shows reaches the view (Ink itself turns raw mode on only after drawing it).
  const cooked = rawBeforeFirstFrame(options.stdin ?? process.stdin);
  const ink = render(
    <ThemeProvider value={theme}>
      <App
        store={store}
        actions={actions}
        onExit={(code, unsent, stopped) => ((draft = unsent ?? ""), (killed = stopped === true), exit(code))}
        killQuestion={options.killQuestion}
        history={history}
        facetColors={facetColors}
        ctrlCInterrupts={options.ctrlCInterrupts}
        files={options.files}
        reload={options.restartDaemon ? () => conn.replaceDaemon("restarting the daemon to load the config", options.restartDaemon!) : undefined}
        cwd={options.config?.cwd}
        keys={keys}
        writeHistory
      />
    </ThemeProvider>,
    {
      stdin: options.stdin,
      stdout: options.stdout,
      exitOnCtrlC: false,
      incrementalRendering: true,
      // Matches the store's FRAME_MS: 15 redraws a second keep streaming text smooth at a fraction of the CPU.
      maxFps: 15,
    },
  );
  const stopReflow = reflowOnResize(options.stdout ?? process.stdout, store);
  // A config that cannot be read rings nothing (the daemon reports its problems).
  void ringOnAlerts(options.stdout ?? process.stdout, store, options.config ?? { cwd: process.cwd(), env: process.env }).catch(() => {});
  const stopWatch = options.config ? await configChanges(options.config, store) : () => {};
  const finish = async (leaving = true) => {
    stopReflow();
    stopWatch();
    stop.abort();
    ink.unmount();
    await ink.waitUntilExit().catch(() => {});
    cooked();
    // Detaching with a half-written prompt must not lose it: it is left on the terminal.
    const out = options.stdout ?? process.stdout;
    if (draft.trim()) out.write(`Unsent prompt (not sent):\n${draft}\n`);
    const stopped = killed || store.health.state === "ended" || store.state.sessionState === "stopped";
    if (leaving) out.write(`${byWords(leavingLine(options.sessionId, { stopped, busy: store.state.busy }, options.reattach), (out as { columns?: number }).columns)}\n`);
  };
  let first: DaemonClient | null;
  try {
    // Ctrl+D while the daemon starts leaves it starting; the session is there for `agent continue`.
    await ink.waitUntilRenderFlush();
    const client = typeof options.client === "function" ? options.client() : options.client;
    first = await Promise.race([client, exited.then(() => null)]);
  } catch (error) {
    await finish(false);
    throw error;
  }
  if (!first) {
    await finish();
    return exited;
  }
  conn.client = first;
  const following = conn.run(stop.signal);
  // The code blocks' grammars load after the first frame, while the history is fetched.
  void loadHighlighter();
  const catalog = watchCatalog(conn, store, facetColors);
  if (options.initialPrompt) {
    actions.prompt(options.initialPrompt).catch((e: unknown) => store.addCommandOutput(options.initialPrompt!, `the first prompt was not sent: ${describeError(e)}`, true));
  }
  const code = await exited;
  catalog();
  await finish();
  await following;
  return code;
}

/** Points out a changed config file once per change: the session keeps the config it started with. */
async function configChanges(config: { cwd: string; env: Record<string, string | undefined> }, store: ViewStore): Promise<() => void> {
  const { watchConfigFiles } = await import("./config-watch.ts");
  return watchConfigFiles(config.cwd, config.env, (path) =>
    store.addNotice("warning", `${path} changed; this session keeps the config it started with until /reload (which restarts its daemon; the conversation stays)`),
  );
}

/**
 * A change of width reflows the conversation: the terminal re-wraps (or cuts) what was printed at the
 * old width and the live area's rows no longer match what Ink erases, which left copies of the editor and
 * half-drawn answers on screen. So, once the size settles, the screen and its scrollback are cleared and
 * the view prints the conversation again at the new width.
 */
function reflowOnResize(out: NodeJS.WriteStream, store: ViewStore): () => void {
  let width = out.columns;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onResize = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (out.columns === width) return;
      width = out.columns;
      out.write("\x1b[2J\x1b[3J\x1b[H");
      store.reflow();
    }, 120);
  };
  out.on("resize", onResize);
  return () => {
    clearTimeout(timer);
    out.off("resize", onResize);
  };
}

interface CatalogModelEntry {
  name: string;
  class?: string;
  provider_name?: string;
  capabilities?: { context_window?: number | null; vision?: boolean };
  /** Dollars per million tokens, where the catalog knows them. */
  cost?: { input: number; output: number } | null;
}

interface FacetEntry {
  name: string;
  description?: string;
  model?: string | null;
  read_only?: boolean;
  unavailable?: boolean;
}

/** `full · 200k context · $3/$15 per M tokens · vision` for the /model menu. */
export function modelDetail(m: CatalogModelEntry): string {
  const parts = [m.class, m.provider_name].filter((p): p is string => !!p);
  if (m.capabilities?.context_window) parts.push(`${compactTokens(m.capabilities.context_window)} context`);
  if (m.cost) parts.push(`$${m.cost.input}/$${m.cost.output} per M tokens`);
  if (m.capabilities?.vision) parts.push("vision");
  return parts.join(" · ");
}

function facetDetail(f: FacetEntry): string {
  if (f.unavailable) return "unavailable (its file has a problem)";
  return [f.description, f.model ? `model ${f.model}` : null, f.read_only ? "read-only" : null].filter(Boolean).join(" · ");
}

/** Reads the daemon catalog once per daemon epoch and catalog revision: the models' context windows (for the context meter) and the facets' colors (for the status line). */
function watchCatalog(conn: Connection, store: ViewStore, facetColors: FacetColorTable): () => void {
  let loadedFor: string | null = null;
  return store.subscribe(() => {
    const epoch = conn.client.epoch;
    const key = `${epoch}/${store.state.catalogRevision}`;
    if (store.health.state !== "connected" || !epoch || key === loadedFor) return;
    loadedFor = key;
    conn.client
      .json<{ models?: CatalogModelEntry[]; facets?: unknown }>("GET", "/daemon-state")
      .then((catalog) => {
        for (const m of catalog.models ?? []) if (m.capabilities?.context_window) store.contextWindows.set(m.name, m.capabilities.context_window);
        for (const m of catalog.models ?? []) store.visionModels.set(m.name, m.capabilities?.vision === true);
        store.catalogModels = (catalog.models ?? []).map((m) => ({ name: m.name, detail: modelDetail(m) }));
        store.catalogFacets = Array.isArray(catalog.facets) ? (catalog.facets as FacetEntry[]).filter((f) => typeof f?.name === "string").map((f) => ({ name: f.name, detail: facetDetail(f) })) : [];
        readFacetColors(catalog.facets, facetColors);
        store.changed();
      })
      .catch(() => {
        // The meter then shows tokens without a share; the catalog is retried on the next epoch or revision.
      });
  });
}
