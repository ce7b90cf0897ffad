// What the themes draw (ink-testing-library, chalk forced to truecolor as on a capable terminal): under
// NO_COLOR a whole conversation (markdown, tool calls with diffs, failures, notices, a question, the
// status line, the banner, the kill confirmation, the picker) writes no color escape at all, while bold,
// dim and inverse remain; the dark and light themes draw their palettes; the status line paints the facet
// name in the catalog's color for the background.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import chalk from "chalk";
import { render } from "ink-testing-library";
import type { ReactNode } from "react";
import type { EngineEvent } from "../../src/agent/events.ts";
import { App } from "../../tui/app.tsx";
import { ConfirmDialog } from "../../tui/components/question-dialog.tsx";
import { ConnectionBanner, StatusLine, type StatusProps } from "../../tui/components/status-line.tsx";
import { FleetStore } from "../../tui/connect/fleet-store.ts";
import { Picker } from "../../tui/connect/picker.tsx";
import { Connection } from "../../tui/connection.ts";
import { SessionActions } from "../../tui/session-actions.ts";
import { readFacetColors } from "../../tui/theme/facet-colors.ts";
import { DARK_THEME, LIGHT_THEME, noColorTheme, ThemeProvider, type Theme } from "../../tui/theme/theme.ts";
import { ViewStore } from "../../tui/view-store.ts";
import { richTurnEvents } from "../daemon/fake-engine.ts";
import { recordSequence, testSnapshot } from "./sync-fixtures.ts";
import { colorEscapes } from "./sgr.ts";

// Ink colors through chalk, which draws nothing when the test's stdout is not a terminal.
const level = chalk.level;
beforeAll(() => {
  chalk.level = 3;
});
afterAll(() => {
  chalk.level = level;
});

/** The text without its SGR escapes, as a person reads it. */
function plain(output: string): string {
  return output.replace(/\x1b\[[\d;:]*m/g, "");
}

function rgb(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return `\x1b[38;2;${r};${g};${b}m`;
}

const sequence = recordSequence();
const records = sequence.records;
const snapshot = () => testSnapshot(sequence.seq);

const usage = { input_tokens: 1000, output_tokens: 50, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };
const MARKDOWN = "# Plan\n\nUse `code`, **bold**, a [link](https://example.com).\n\n> a quote\n\n- item\n\n```ts\nconst x = 1;\n```";

/** A second turn: markdown, an edit with its diff, a patch, a failed tool, a warning, then a failed turn. */
function failingTurn(turn: string): EngineEvent[] {
  const m = `msg_${turn}`;
  const call = (id: string, name: string, args: Record<string, unknown>) => [
    { type: "part_started", message_id: m, part_id: `prt_${id}`, kind: "tool_call", call_id: id, name },
    { type: "part_completed", message_id: m, part: { id: `prt_${id}`, type: "tool_call", call_id: id, name, arguments: args } },
  ];
  return [
    { type: "turn_started", turn_id: turn, model: "a-large", facet: "plan" },
    { type: "user_message", turn_id: turn, message: { id: `msg_u${turn}`, role: "user", origin: "prompt", content: [{ type: "text", text: "fix it" }], created_at: 1 } },
    { type: "assistant_message_started", turn_id: turn, message_id: m, model: "a-large", created_at: 2 },
    { type: "part_started", message_id: m, part_id: `prt_t${turn}`, kind: "text" },
    { type: "part_delta", message_id: m, part_id: `prt_t${turn}`, delta: MARKDOWN },
    { type: "part_completed", message_id: m, part: { id: `prt_t${turn}`, type: "text", text: MARKDOWN } },
    ...call("c_edit", "edit", { path: "a.ts", old_string: "let x = 1;", new_string: "let x = 2;" }),
    ...call("c_patch", "edit", { patch: "@@ -1 +1 @@\n-a\n+b\n c" }),
    ...call("c_fail", "shell", { command: "false" }),
    { type: "assistant_message_completed", message_id: m, usage, stop_reason: "tool_use" },
    { type: "tool_call_completed", turn_id: turn, results_message_id: `msg_r${turn}`, result: { call_id: "c_edit", name: "edit", status: "completed", output: "Edited a.ts" }, duration_ms: 3, completed_at: 3 },
    { type: "tool_call_completed", turn_id: turn, results_message_id: `msg_r${turn}`, result: { call_id: "c_patch", name: "edit", status: "denied", output: "denied" }, duration_ms: 1, completed_at: 3 },
    { type: "tool_call_completed", turn_id: turn, results_message_id: `msg_r${turn}`, result: { call_id: "c_fail", name: "shell", status: "error", output: "exit 1" }, duration_ms: 5, completed_at: 4 },
    { type: "notice", level: "error", message: "something broke" },
    { type: "turn_completed", turn_id: turn, stop_reason: "error", error: { code: "provider_error", message: "overloaded" }, usage },
  ] as EngineEvent[];
}

/** A busy turn waiting on a permission question, so the spinner, the dialog and the queue all show. */
function askingTurn(turn: string): EngineEvent[] {
  return [
    { type: "turn_started", turn_id: turn, model: "a-large", facet: "plan" },
    { type: "progress", turn_id: turn, text: "thinking hard" },
    { type: "queue_changed", queue: [{ id: "inp_9", text: "later" }] },
    { type: "interrogative_opened", interrogative: { id: "itg_9", kind: "permission", turn_id: turn, tool: "shell", arguments: { command: "rm -rf build" }, reason: "ask rule" } },
  ] as EngineEvent[];
}

function conversation(theme: Theme, facetColors = new Map()) {
  const store = new ViewStore();
  store.onSnapshot(snapshot(), false);
  store.onRecords(records([...richTurnEvents("trn_1"), ...failingTurn("trn_2"), ...askingTurn("trn_3")]));
  const actions = new SessionActions(new Connection(null, store), store, new AbortController().signal);
  const ui = render(
    <ThemeProvider value={theme}>
      <App store={store} actions={actions} onExit={() => {}} facetColors={facetColors} />
    </ThemeProvider>,
  );
  return { ui, store };
}

function drawn(node: ReactNode, theme: Theme): string {
  const ui = render(<ThemeProvider value={theme}>{node}</ThemeProvider>);
  const out = ui.frames.join("\n");
  ui.unmount();
  return out;
}

const status = (over: Partial<StatusProps> = {}): StatusProps => ({
  health: { state: "connected", message: null, attempts: 0 },
  busy: false,
  catchingUp: false,
  progress: null,
  model: "a-large",
  facet: "plan",
  contextTokens: null,
  contextWindow: undefined,
  sessionState: "running",
  ...over,
});

async function settled(ui: ReturnType<typeof render>, what: string): Promise<string> {
  const deadline = Date.now() + 4_000;
  while (!plain(ui.frames.join("\n")).includes(what)) {
    if (Date.now() > deadline) throw new Error(`waited for ${what}; the screen shows:\n${ui.lastFrame()}`);
    await Bun.sleep(10);
  }
  return ui.frames.join("\n");
}

describe("NO_COLOR", () => {
  test("a whole conversation draws no color escape; bold, dim and inverse stay", async () => {
    const { ui } = conversation(noColorTheme(), new Map([["plan", { light: "#9a6700", dark: "#d29922" }]]));
    const out = await settled(ui, "Allow shell rm -rf build?");
    for (const text of ["› list files", "const x = 1;", "- let x = 1;", "+ let x = 2;", "⎿ error", "something broke", "failed", "1. Allow once", "thinking hard", "facet plan", "⧗ queued: later", "↻ retry 1/3 in"]) {
      expect(plain(out)).toContain(text);
    }
    expect(colorEscapes(out)).toEqual([]);
    expect(out).toContain("\x1b[1m");
    expect(out).toContain("\x1b[2m");
    ui.unmount();
  });

  test("the disconnected banner, the kill confirmation and the picker draw no color either", () => {
    const theme = noColorTheme();
    const banner = drawn(<ConnectionBanner health={{ state: "disconnected", message: "connection refused. Retry later", attempts: 2 }} />, theme);
    expect(plain(banner)).toContain("DISCONNECTED");
    const offline = drawn(<StatusLine {...status({ health: { state: "disconnected", message: null, attempts: 1 } })} facetColors={{ light: "#9a6700", dark: "#d29922" }} />, theme);
    expect(plain(offline)).toContain("offline");
    const confirm = drawn(<ConfirmDialog text="Stop this session?" onResult={() => {}} active />, theme);
    expect(plain(confirm)).toContain("Stop the session");
    expect(confirm).toContain("\x1b[7m Cancel ");
    const store = new FleetStore();
    store.setFeed("reconnecting", "connection refused");
    const picker = drawn(<Picker store={store} title="gw" status={{ kind: "error", text: "could not start" }} onAttach={() => {}} onCreate={() => {}} onRefresh={() => {}} onCancel={() => {}} />, theme);
    expect(plain(picker)).toContain("could not start");
    expect(plain(picker)).toContain("not live");
    expect(colorEscapes(banner + offline + confirm + picker)).toEqual([]);
    // The same screens with colors on do color: the check above can fail.
    expect(colorEscapes(drawn(<ConnectionBanner health={{ state: "disconnected", message: null, attempts: 1 }} />, DARK_THEME)).length).toBeGreaterThan(0);
  });
});

describe("palettes and facet colors", () => {
  test("dark draws the terminal's ANSI colors; light draws its fixed hex colors", async () => {
    const dark = conversation(DARK_THEME);
    const darkOut = await settled(dark.ui, "Allow shell rm -rf build?");
    dark.ui.unmount();
    expect(darkOut).toContain("\x1b[31m"); // error: red
    expect(darkOut).toContain("\x1b[32m"); // diff_added: green
    expect(darkOut).not.toContain("\x1b[38;2;");
    const light = conversation(LIGHT_THEME);
    const lightOut = await settled(light.ui, "Allow shell rm -rf build?");
    light.ui.unmount();
    for (const key of ["error", "diff_added", "diff_removed", "warning", "selection", "prompt", "code", "code_block", "link"] as const) {
      expect(lightOut).toContain(rgb(LIGHT_THEME.colors[key]!));
    }
    expect(colorEscapes(lightOut).filter((e) => !e.startsWith("\x1b[38;2;") && e !== "\x1b[39m")).toEqual([]);
  });

  test("the status line paints the facet name in the catalog's color for the background", () => {
    const table = new Map();
    readFacetColors([{ name: "plan", colors: { light: "#9a6700", dark: "#d29922" } }, { name: "odd", colors: { light: "blue", dark: "#000000" } }, { name: "none" }], table);
    expect([...table.keys()]).toEqual(["plan"]);
    const colors = table.get("plan");
    expect(drawn(<StatusLine {...status()} facetColors={colors} />, DARK_THEME)).toContain(`${rgb("#d29922")}plan`);
    expect(drawn(<StatusLine {...status()} facetColors={colors} />, LIGHT_THEME)).toContain(`${rgb("#9a6700")}plan`);
    const plainLine = drawn(<StatusLine {...status()} facetColors={colors} />, noColorTheme());
    expect(plainLine).toContain("plan");
    expect(colorEscapes(plainLine)).toEqual([]);
  });

  test("the conversation view takes the active facet's colors from the table it is given", async () => {
    const { ui } = conversation(LIGHT_THEME, new Map([["plan", { light: "#116329", dark: "#7ee787" }]]));
    const out = await settled(ui, "facet ");
    ui.unmount();
    expect(out).toContain(`${rgb("#116329")}plan`);
  });
});
