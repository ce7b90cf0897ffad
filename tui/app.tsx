// The conversation view: finished blocks printed once above (Ink's <Static>; the history on attach and a
// reflow's reprint written as rows in one piece, print-blocks.tsx), then the live tail, the
// queue, the open question or the prompt editor, and the status line. The same tree serves a local
// daemon and a remote one through the gateway proxy: it only speaks through SessionActions.
import { Box, Static, Text, useInput, useStdin, useStdout, useWindowSize } from "ink";
import { nextPermissionMode } from "./permission-mode.ts";
import { useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore, type ReactNode } from "react";
import type { InterrogativeAnswer } from "../src/agent/events.ts";
import { BlockView } from "./components/block-view.tsx";
import { printBlocks, PrintedBlock } from "./print-blocks.tsx";
import { CompletionMenu } from "./components/completion-menu.tsx";
import { applyCompletion, completions, completionToken } from "./completion.ts";
import { PromptEditor } from "./components/prompt-editor.tsx";
import { ConfirmDialog, QuestionDialog } from "./components/question-dialog.tsx";
import { RewindPicker, type RewindOutcome } from "./components/rewind-picker.tsx";
import { ElicitationForm } from "./components/elicitation-form.tsx";
import { ConnectionBanner, StatusLine } from "./components/status-line.tsx";
import { EMPTY_EDITOR, editorOf, PromptHistory, type EditorState } from "./editor-model.ts";
import { readImage, type Attachment } from "./image-attach.ts";
import { clipboardImage } from "./keys/clipboard-image.ts";
import { editInEditor, type RawInput } from "./keys/external-editor.ts";
import { DEFAULT_KEYS, matches, type KeyMap } from "./keys/keymap.ts";
import { describeError, type SessionActions } from "./session-actions.ts";
import { helpTable, helpText, LOCAL_COMMANDS, parseShell, parseSlash, unescapePrompt, type SlashCommand } from "./slash.ts";
import type { FacetColorTable } from "./theme/facet-colors.ts";
import { useTheme } from "./theme/theme.ts";
import type { ViewStore } from "./view-store.ts";

export interface AppProps {
  store: ViewStore;
  actions: SessionActions;
  /** Ends the view; the session keeps running unless it was stopped with /kill-session (`stopped`). `draft`: unsent text. */
  onExit(code: number, draft?: string, stopped?: boolean): void;
  /** The /kill-session confirmation (remote sessions resume from the picker, not with `agent continue`). */
  killQuestion?: string;
  /** Prompt history (Up/Down); by default this view's own. */
  history?: PromptHistory;
  /** Each facet's colors from the daemon catalog (the status line paints the active facet's name). */
  facetColors?: FacetColorTable;
  /** Ctrl+C while a turn runs interrupts it, and a second Ctrl+C detaches (local sessions); otherwise one Ctrl+C detaches. */
  ctrlCInterrupts?: boolean;
  /** The project's files for `@` mentions (a local session's file catalog); without it `@` offers nothing. */
  files?: () => Promise<readonly string[]>;
  /** `/reload`: restarts the session's daemon so it loads the config files again (local sessions). */
  reload?: () => Promise<void>;
  /** Where `/image` resolves a relative path (the directory the view was started in). */
  cwd?: string;
  /**
   * The history printed on attach and a reflow's reprint are written as rows through Ink's stdout write
   * (print-blocks.tsx) rather than drawn by <Static>: the same screen without Ink's per-cell output of
   * every printed line. Off for renderers that keep only <Static>'s output (ink-testing-library's frames).
   */
  writeHistory?: boolean;
  /** The view's keys (tui.keys, tui/keys/keymap.ts). */
  keys?: KeyMap;
  /** The external editor (tui.keys.external_editor): the prompt's new text, or why it is unchanged. */
  editPrompt?: (text: string, input: RawInput) => { text: string } | { error: string };
  /** The clipboard's image (tui.keys.paste_image). */
  pasteImage?: () => Attachment | { error: string };
}

export function App({ store, actions, onExit, killQuestion = "Stop this session? Its daemon exits; 'agent continue' starts it again.", history: shared, facetColors, ctrlCInterrupts = false, files: listFiles, reload, cwd = process.cwd(), writeHistory = false, keys = DEFAULT_KEYS, editPrompt = (text, input) => editInEditor(text, process.env, input), pasteImage = () => clipboardImage() }: AppProps): ReactNode {
  useSyncExternalStore(store.subscribe, store.getVersion);
  const theme = useTheme();
  const colors = theme.colors;
  const s = store.state;
  const [editor, setEditor] = useState<EditorState>(EMPTY_EDITOR);
  const [details, setDetails] = useState(false);
  const [confirmKill, setConfirmKill] = useState(false);
  const [rewinding, setRewinding] = useState(false);
  const [sending, setSending] = useState(0);
  const [answering, setAnswering] = useState<string | null>(null);
  const [answerError, setAnswerError] = useState<string | null>(null);
  const [flash, setFlash] = useState<string | null>(null);
  const [history] = useState(() => shared ?? new PromptHistory());
  // Images attached with /image, sent with the next prompt.
  const [attached, setAttached] = useState<Attachment[]>([]);
  // The turn a Ctrl+C interrupted: a ref too, since a second Ctrl+C may arrive in the same read.
  const interrupted = useRef<string | null>(null);
  const [, setInterrupted] = useState<string | null>(null);
  // A live area taller than the screen cannot be redrawn in place; streaming text shows its last lines.
  const size = useWindowSize();
  const { write } = useStdout();
  const { stdin } = useStdin();
  // Printed blocks are drawn by the store's rowsOf when they are printed (outside React's commit: Ink's
  // renderToString cannot run inside one), with what the view shows now.
  const printing = useRef({ columns: size.columns, theme, details });
  printing.current = { columns: size.columns, theme, details };
  store.rowsOf = writeHistory ? (blocks) => printBlocks(blocks, printing.current) : null;
  // <Static> draws its new items, and a new <Static> makes Ink draw the frame at once, while the tree
  // commits, before layout effects run: rows written here come after them and above the new frame.
  const staticLength = store.staticItems.length;
  useLayoutEffect(() => {
    store.staticDrawn = staticLength;
    const rows = store.takeWrite();
    if (rows) write(rows);
  });
  const liveLines = Math.max(4, size.rows - 12);
  const live = store.health.state === "connected" && !store.catchingUp;
  const question = s.pending[0];
  const dialog = confirmKill ? "confirm" : rewinding ? "rewind" : question ? "question" : null;

  // The completion menu: commands on `/`, their arguments for /model and /facet, files on `@`.
  const [sessionCommands, setSessionCommands] = useState<{ name: string; usage: string; summary: string }[] | null>(null);
  const [files, setFiles] = useState<readonly string[] | null>(null);
  const [resources, setResources] = useState<{ server: string; uri: string; name: string }[]>([]);
  const [menuIndex, setMenuIndex] = useState(0);
  const [menuClosedAt, setMenuClosedAt] = useState<string | null>(null);
  const token = dialog ? null : completionToken(editor);
  useEffect(() => {
    // Asked again each time the menu opens: tool servers connect in the background, bringing prompts and resources.
    if (token?.kind === "command" && live) {
      if (sessionCommands === null) setSessionCommands([]);
      actions.commands().then((r) => setSessionCommands(r.commands), () => setSessionCommands((c) => (c?.length ? c : null)));
    }
    if (token?.kind === "file" && live) {
      actions.sessionCommand("mcp", ["resources"]).then(
        (r) => setResources(((r.data as { resources?: { server: string; uri: string; name: string }[] } | undefined)?.resources ?? []).map(({ server, uri, name }) => ({ server, uri, name }))),
        () => {},
      );
    }
    if (token?.kind === "file" && files === null && listFiles) {
      setFiles([]);
      listFiles().then(setFiles, () => setFiles([]));
    }
  }, [token?.kind, live]);
  useEffect(() => setMenuIndex(0), [token?.kind, token?.query]);
  const commandRows = [...LOCAL_COMMANDS, ...(sessionCommands ?? []).filter((c) => !LOCAL_COMMANDS.some((l) => l.name === c.name))];
  const items = token && menuClosedAt !== editor.text ? completions(token, { commands: commandRows, files: files ?? [], resources, models: store.catalogModels, facets: store.catalogFacets }) : [];
  const menuOpen = token !== null && menuClosedAt !== editor.text && items.length > 0;
  const menu = menuOpen
    ? {
        move: (dir: -1 | 1) => setMenuIndex((i) => (i + dir + items.length) % items.length),
        accept: () => {
          const item = items[Math.min(menuIndex, items.length - 1)]!;
          // What is typed is already the pick: Enter sends it.
          if (editor.text.slice(token.start, token.end) === item.value) return false;
          const takesArgs = token.kind === "command" && /\s/.test(item.label);
          setEditor((e) => applyCompletion(e, token, item, takesArgs));
          return true;
        },
        close: () => setMenuClosedAt(editor.text),
      }
    : null;

  function interrupt() {
    actions.interrupt().catch((e: unknown) => setFlash(`interrupt failed: ${describeError(e)}`));
  }

  useInput((input, key) => {
    if (key.ctrl && input === "c") {
      if (ctrlCInterrupts && s.busy && live && s.turnId && interrupted.current !== s.turnId) {
        interrupted.current = s.turnId;
        setInterrupted(s.turnId);
        return interrupt();
      }
      return onExit(0, editor.text);
    }
    if (matches(keys, "detach", input, key) && !editor.text && !dialog) return onExit(0);
    if (matches(keys, "details", input, key)) {
      if (!details) store.reprintLastTurn();
      return setDetails(!details);
    }
    if (matches(keys, "external_editor", input, key) && !dialog) return openEditor();
    if (matches(keys, "paste_image", input, key) && !dialog) return attachClipboard();
    if (matches(keys, "interrupt", input, key) && !dialog && !menuOpen && s.busy && live) interrupt();
    if (key.tab && key.shift && !dialog && !menuOpen && live) cycleMode();
  });

  /** Shift+Tab: the next permission mode (tui/permission-mode.ts), through the session's own commands. */
  function cycleMode() {
    const step = nextPermissionMode(s.facet, s.autonomy, s.sandbox);
    (async () => {
      for (const [name, args] of step.commands) {
        const result = await actions.sessionCommand(name, args);
        const autonomy = (result.data as { autonomy?: string } | undefined)?.autonomy;
        if (autonomy) {
          store.state.autonomy = autonomy;
          store.changed();
        }
      }
    })().catch((e: unknown) => setFlash(`mode not changed to ${step.label}: ${describeError(e)}`));
  }

  /** The prompt in the person's editor; the view waits until it exits. */
  function openEditor() {
    const done = editPrompt(editor.text, stdin as RawInput);
    if ("error" in done) return setFlash(done.error);
    setFlash(null);
    setEditor(editorOf(done.text));
  }

  function attachClipboard() {
    const model = s.model?.replace(/\(.*\)$/, "") ?? null;
    if (model && store.visionModels.get(model) === false) return setFlash(`the model ${model} cannot see images; nothing was attached`);
    const read = pasteImage();
    if ("error" in read) return setFlash(read.error);
    setFlash(null);
    setAttached((a) => [...a, read]);
  }

  function submit(text: string) {
    history.add(text);
    setEditor(EMPTY_EDITOR);
    setFlash(null);
    const shell = parseShell(text);
    if (shell) return runShell(text, shell);
    const command = parseSlash(text);
    if (command) return runCommand(text, command);
    setSending((n) => n + 1);
    const images = attached;
    setAttached([]);
    actions
      .prompt(unescapePrompt(text), images.length ? images.map((a) => a.image) : undefined)
      .catch((error: unknown) => {
        setAttached((a) => (a.length ? a : images));
        // Never lose what was typed: a refused prompt goes back into an empty editor.
        setEditor((e) => (e.text ? e : editorOf(text)));
        setFlash(`not sent (${describeError(error)}); the text is back in the editor`);
      })
      .finally(() => setSending((n) => n - 1));
  }

  /** `!COMMAND`: the session's /shell (asks permission like the model's calls); the output goes to the model with the next prompt. */
  function runShell(text: string, command: string) {
    const at = store.commandStarted();
    actions
      .sessionCommand("shell", [command])
      .then((r) => store.addCommandOutput(text, `${r.message.trimEnd()}\n(the model sees this with your next prompt)`, (r.data as { failed?: boolean } | undefined)?.failed === true, undefined, at))
      .catch((e: unknown) => store.addCommandOutput(text, describeError(e), true, undefined, at));
  }

  function runCommand(text: string, command: SlashCommand) {
    if (command.name === "exit") return onExit(0);
    if (command.name === "kill-session") return setConfirmKill(true);
    if (command.name === "image") return attachImage(text, command.args.join(" "));
    if (command.name === "reload") return reloadConfig(text);
    if (command.name === "rewind" && command.args.length === 0 && !s.busy) return setRewinding(true);
    if (command.name === "help") {
      actions
        .commands()
        .then((r) => store.addCommandOutput(text, helpText(r.commands, null, ctrlCInterrupts, keys), false, helpTable(r.commands, null, ctrlCInterrupts, keys)))
        .catch((e: unknown) => store.addCommandOutput(text, helpText(null, describeError(e), ctrlCInterrupts, keys), false, helpTable(null, describeError(e), ctrlCInterrupts, keys)));
      return;
    }
    const at = store.commandStarted();
    actions
      .sessionCommand(command.name, command.args)
      .then((r) => store.addCommandOutput(text, r.message, false, undefined, at))
      .catch((e: unknown) => store.addCommandOutput(text, describeError(e), true, undefined, at));
  }

  /** `/image PATH`: refused for a model the catalog says cannot see images. */
  function attachImage(text: string, path: string) {
    if (!path) return store.addCommandOutput(text, "usage: /image PATH (a PNG, JPEG, GIF or WebP file; /image clear drops the attached ones)", true);
    if (path === "clear") {
      setAttached([]);
      return store.addCommandOutput(text, attached.length ? "the attached images were dropped" : "no image was attached", false);
    }
    const model = s.model?.replace(/\(.*\)$/, "") ?? null;
    if (model && store.visionModels.get(model) === false) {
      const seeing = [...store.visionModels].filter(([, v]) => v).map(([n]) => n);
      return store.addCommandOutput(text, `the model ${model} cannot see images, so none was attached. ${seeing.length ? `Switch to one that can (/model ${seeing.slice(0, 3).join(", /model ")}), then attach it again.` : "No configured model can see images."}`, true);
    }
    const read = readImage(path, cwd);
    if ("error" in read) return store.addCommandOutput(text, `${read.error}; nothing was attached`, true);
    setAttached((a) => [...a, read]);
  }

  /** `/reload`: the session's daemon is restarted (as `agent continue` resumes it) so it reads the config again. */
  function reloadConfig(text: string) {
    if (!reload) return store.addCommandOutput(text, "/reload works for local sessions; through a gateway, stop the session and resume it from the picker", true);
    if (s.busy) return store.addCommandOutput(text, "a turn is running: /reload restarts the daemon, which would interrupt it. Wait for the turn to end (or press Esc), then /reload", true);
    store.addCommandOutput(text, "restarting the session's daemon to load the config files again (the conversation stays)…", false);
    reload().then(
      () => store.addNotice("info", "config reloaded: the session's daemon runs with the current config files"),
      (e: unknown) => store.addNotice("warning", `the reload failed: ${describeError(e)}`),
    );
  }

  function onHistory(dir: -1 | 1) {
    if (dir < 0 && !editor.text && s.queue.length > 0) {
      actions
        .dequeueNewest()
        .then((t) => t !== null && setEditor(editorOf(t)))
        .catch((e: unknown) => setFlash(`could not take back the queued input: ${describeError(e)}`));
      return;
    }
    const text = dir < 0 ? history.previous(editor.text) : history.next();
    if (text !== null) setEditor(editorOf(text));
  }

  function answer(id: string, a: InterrogativeAnswer) {
    setAnswering(id);
    setAnswerError(null);
    actions
      .answer(id, a)
      .catch((e: unknown) => setAnswerError(`the answer was not accepted: ${describeError(e)}`))
      .finally(() => setAnswering(null));
  }

  /** The /rewind picker ended: its command's answer goes in the transcript, the prompt back into an empty editor. */
  function rewound(outcome: RewindOutcome) {
    setRewinding(false);
    store.addCommandOutput(outcome.command ?? "/rewind", outcome.message, outcome.failed);
    if (outcome.promptText) setEditor((e) => (e.text ? e : editorOf(outcome.promptText!)));
  }

  function kill(ok: boolean) {
    setConfirmKill(false);
    if (!ok) return;
    actions
      .stopSession()
      .then(() => onExit(0, undefined, true))
      .catch((e: unknown) => setFlash(`the session was not stopped: ${describeError(e)}`));
  }

  return (
    <>
      {/* Static output is laid out outside the screen's box: a width keeps rows of a mark and wrapped text inside the terminal. */}
      <Static key={store.printEpoch} items={store.staticItems}>
        {(b) => <PrintedBlock key={b.id} block={b} details={details} columns={size.columns} />}
      </Static>
      <Box flexDirection="column">
        {/* While the history replays nothing is drawn: the print-once pass at its end draws it. */}
        {(store.catchingUp ? [] : store.tail()).map((b) => (
          <BlockView key={b.id} block={b} details={details} stale={!live} maxLines={liveLines} columns={size.columns} />
        ))}
        {s.queue.map((q) => (
          <Text key={q.id} dimColor wrap="truncate-end">{`⧗ queued: ${q.text.replace(/\n/g, " ⏎ ")}`}</Text>
        ))}
        {s.queue.length ? <Text dimColor>{"  (Up on an empty prompt takes back the newest)"}</Text> : null}
        {attached.map((a, i) => (
          <Text key={i} color={colors.accent} wrap="truncate-end">{`⎘ image ${a.name} (${Math.max(1, Math.round(a.bytes / 1024))} KB): sent with your next prompt · /image clear drops it`}</Text>
        ))}
        <ConnectionBanner health={store.health} />
        {flash ? <Text color={colors.error}>{flash}</Text> : null}
        {s.busy && s.turnId && interrupted.current === s.turnId ? <Text dimColor>interrupting the turn… (Ctrl+C again detaches)</Text> : null}
        {sending > 0 ? <Text dimColor>{live ? "sending…" : "waiting for the connection to send…"}</Text> : null}
        {dialog === "confirm" ? <ConfirmDialog text={killQuestion} onResult={kill} active /> : null}
        {dialog === "rewind" ? <RewindPicker actions={actions} onDone={rewound} active={live} /> : null}
        {dialog === "question" && question && live ? (
          answering === question.id ? (
            <Text dimColor>sending the answer…</Text>
          ) : (
            question.kind === "elicitation" ? (
              <ElicitationForm key={question.id} server={question.server} message={question.message} schema={question.requested_schema} more={s.pending.length - 1} onAnswer={(a) => answer(question.id, a)} active={live} error={answerError} />
            ) : (
            <QuestionDialog key={question.id} question={question} more={s.pending.length - 1} onAnswer={(a) => answer(question.id, a)} onEscape={s.busy ? interrupt : undefined} active={live} error={answerError} />
            )
          )
        ) : null}
        <PromptEditor
          value={editor}
          onEdit={setEditor}
          onSubmit={submit}
          onHistory={onHistory}
          keys={keys}
          active={!dialog}
          placeholder={s.busy ? "Type to queue a message…" : "Type a message, / for commands, @ for files and resources"}
          menu={menu}
        />
        {menuOpen ? <CompletionMenu items={items} selected={Math.min(menuIndex, items.length - 1)} empty={null} /> : null}
        <StatusLine
          health={store.health}
          busy={s.busy}
          catchingUp={store.catchingUp}
          progress={s.progress}
          model={s.model}
          facet={s.facet}
          facetColors={s.facet ? facetColors?.get(s.facet) : undefined}
          contextTokens={store.contextTokens()}
          contextWindow={s.model ? store.contextWindows.get(s.model) : undefined}
          sessionState={s.sessionState}
          costUsd={s.costUsd}
          sandbox={s.sandbox}
          autonomy={s.autonomy}
        />
      </Box>
    </>
  );
}
