// The `agent connect` picker (ink-testing-library): both tables, Tab / n / Esc / r / Enter / Ctrl+C, paths
// shortened to their last two segments, and a fleet event applied to the store redrawing the row live.
// Hosts (issue 39): a HOST column when the sessions are on more than one host, an offline host's sessions
// faint with `offline` as their state and refused on Enter, a summary from a gateway older than hosts shown
// as online, and the table fitted to 80 columns.
import { describe, expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import chalk from "chalk";
import { render as inkRender } from "ink";
import { render } from "ink-testing-library";
import type { ReactElement } from "react";
import type { FleetProject, FleetSession } from "../../src/protocol/fleet-event.ts";
import { FleetStore, shortPath, type CatalogPage, type WireSession } from "../../tui/connect/fleet-store.ts";
import { Picker, type PickerStatus } from "../../tui/connect/picker.tsx";

const AT = "2025-03-04T05:06:07.000Z";
const project = (id: string, path: string): FleetProject => ({ project_id: id, path, config_name: "default", registered_at: AT, updated_at: AT });
const session = (id: string, projectId: string, state: FleetSession["state"], summary: Partial<NonNullable<FleetSession["summary"]>> | null = null, host = "build-host", online = true): FleetSession => ({
  session_id: id,
  project_id: projectId,
  launch_mode: "project_direct",
  state,
  daemon_epoch: "ep1",
  updated_at: AT,
  summary: summary ? { version: 1, daemon_epoch: "ep1", cursor: "c", busy: false, attention: false, history_checkpoint: "", history_total_items: 0, ...summary } : null,
  observed_at: summary ? AT : null,
  stale: !online && state === "running",
  owner_host: host,
  host_online: online,
});

function catalog(projects: FleetProject[], sessions: WireSession[]): CatalogPage {
  return {
    version: 1,
    fleet_epoch: "fe1",
    cursor: "cur0",
    snapshot: "snap",
    expires_at: AT,
    features: [],
    page: { index: 0, count: 1, next: null, entries: projects.length + sessions.length, total_projects: projects.length, total_sessions: sessions.length },
    projects,
    sessions,
  };
}

const PROJECTS = [project("aaaa0001", "/srv/work/acme/api"), project("aaaa0002", "/home/ann/tools")];
const ONE_HOST = [session("ses_01a", "aaaa0001", "stopped"), session("ses_02b", "aaaa0001", "running", { busy: true }), session("ses_03c", "aaaa0002", "running", { attention: true })];

function mount(status: PickerStatus | null = null, sessions: WireSession[] = ONE_HOST) {
  const store = new FleetStore();
  store.loadCatalog([catalog(PROJECTS, sessions)]);
  store.setFeed("live");
  const calls: string[] = [];
  const ui = render(
    <Picker
      store={store}
      title="gateway build-host (127.0.0.1:19870)"
      status={status}
      onAttach={(s) => calls.push(`attach ${s.session_id}`)}
      onCreate={(p) => calls.push(`create ${p.project_id}`)}
      onRefresh={() => calls.push("refresh")}
      onCancel={() => calls.push("cancel")}
    />,
  );
  const frame = () => ui.lastFrame() ?? "";
  const press = async (keys: string) => {
    ui.stdin.write(keys);
    await settle();
  };
  return { store, ui, frame, press, calls };
}

/** Lets Ink handle the input and render (a few macrotasks; nothing here is timed). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

/** Retries an expectation until it holds, for at most 5 s. */
async function soon(check: () => void): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      return check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await Bun.sleep(5);
    }
  }
}

/** Draws with chalk's colors on (the faint SGR is what a dim row looks like), restoring the level after. */
async function colored<T>(work: () => Promise<T> | T): Promise<T> {
  const level = chalk.level;
  chalk.level = 3;
  try {
    return await work();
  } finally {
    chalk.level = level;
  }
}

const SGR = /\x1b\[[\d;]*m/g;
const plain = (text: string) => text.replace(SGR, "");
/** The SGR parameters in effect where `needle` starts on its line. */
const styleBefore = (line: string, needle: string) => [...line.slice(0, line.indexOf(needle)).matchAll(/\x1b\[([\d;]*)m/g)].map((m) => m[1]);

/** Renders in a terminal `columns` wide (ink-testing-library's is always 100); the last frame drawn. */
function renderAt(columns: number, node: ReactElement): { frame(): string; unmount(): void } {
  let last = "";
  const stdout = Object.assign(new EventEmitter(), { columns, rows: 40, write: (frame: string) => void (last = frame) });
  const stdin = Object.assign(new EventEmitter(), { isTTY: true, setRawMode() {}, setEncoding() {}, resume() {}, pause() {}, ref() {}, unref() {}, read: () => null });
  const ink = inkRender(node, { stdout: stdout as never, stdin: stdin as never, debug: true, exitOnCtrlC: false, patchConsole: false });
  return { frame: () => last, unmount: () => ink.unmount() };
}

const TWO_HOSTS = [
  session("ses_01a", "aaaa0001", "stopped", null, "build-1"),
  session("ses_02b", "aaaa0001", "running", { busy: true }, "build-2", false),
  session("ses_03c", "aaaa0002", "running", { attention: true }, "build-1"),
];

const DOWN = "\u001b[B";
const UP = "\u001b[A";
const ESC = "\u001b";

describe("connect picker", () => {
  test("sessions table first, newest on top, with state, short project path and activity", () => {
    const { frame } = mount();
    const f = frame();
    expect(f).toContain("Sessions (3)");
    expect(f).toContain("Projects (2)");
    // Every session on one host: no HOST column.
    expect(f).toMatch(/SESSION\s+STATE\s+PROJECT\s+ACTIVITY\s+UPDATED/);
    expect(f).not.toContain("HOST");
    const rows = f.split("\n").filter((l) => l.includes("ses_"));
    expect(rows.map((r) => r.match(/ses_\w+/)![0])).toEqual(["ses_03c", "ses_02b", "ses_01a"]);
    expect(rows[0]).toMatch(/^› ses_03c\s+running\s+ann\/tools\s+needs you\s+2025-03-04 05:06/);
    expect(rows[1]).toMatch(/ses_02b\s+running\s+acme\/api\s+working/);
    expect(rows[2]).toMatch(/ses_01a\s+stopped\s+acme\/api\s+-/);
    expect(f).toContain("● live");
    expect(f).not.toContain("/srv/work");
  });

  test("arrows and Enter attach; Tab and n switch to projects where Enter creates; Esc goes back, then cancels", async () => {
    const { frame, press, calls } = mount();
    await press(DOWN);
    await press(DOWN);
    await press("\r");
    await soon(() => expect(calls).toEqual(["attach ses_01a"]));
    await press(UP);
    await press("\r");
    await soon(() => expect(calls.at(-1)).toBe("attach ses_02b"));

    await press("\t");
    await soon(() => expect(frame()).toMatch(/PROJECT\s+CONFIG\s+SESSIONS\s+ID/));
    // By path: /home/ann/tools before /srv/work/acme/api.
    await soon(() => expect(frame()).toMatch(/› ann\/tools\s+default\s+1\s+aaaa0002/));
    await soon(() => expect(frame()).toMatch(/ {2}acme\/api\s+default\s+2\s+aaaa0001/));
    await press(DOWN);
    await press("\r");
    await soon(() => expect(calls.at(-1)).toBe("create aaaa0001"));

    await press(ESC);
    await soon(() => expect(frame()).toMatch(/SESSION\s+STATE/));
    await press("n");
    await soon(() => expect(frame()).toContain("CONFIG"));
    await press("\t");
    await soon(() => expect(frame()).toMatch(/SESSION\s+STATE/));
    await press("r");
    await soon(() => expect(calls.at(-1)).toBe("refresh"));
    await press(ESC);
    await soon(() => expect(calls.at(-1)).toBe("cancel"));
  });

  test("a fleet event redraws the table live; the selection stays on its session", async () => {
    const { store, frame, press } = mount();
    await press(DOWN);
    await soon(() => expect(frame()).toMatch(/› ses_02b\s+running/));
    expect(store.apply({ version: 1, fleet_epoch: "fe1", cursor: "cur1", at: AT, type: "session_upserted", session: session("ses_04d", "aaaa0002", "starting") })).toBe(true);
    expect(store.apply({ version: 1, fleet_epoch: "fe1", cursor: "cur2", at: AT, type: "session_upserted", session: session("ses_02b", "aaaa0001", "stopped") })).toBe(true);
    await soon(() => expect(frame()).toContain("Sessions (4)"));
    await soon(() => expect(frame()).toMatch(/ses_04d\s+starting/));
    await soon(() => expect(frame()).toMatch(/› ses_02b\s+stopped/));
    // Another epoch's event is refused: the caller fetches a new catalog.
    expect(store.apply({ version: 1, fleet_epoch: "fe2", cursor: "x", at: AT, type: "session_removed", session_id: "ses_02b" })).toBe(false);
    store.setFeed("reconnecting", "the gateway ended the event stream");
    await soon(() => expect(frame()).toContain("not live, reconnecting (the gateway ended the event stream)"));
  });

  test("while an action runs keys wait except Ctrl+C; an error is shown", async () => {
    const busy = mount({ kind: "busy", text: "starting the session…" });
    await busy.press("\r");
    await busy.press("\t");
    await soon(() => expect(busy.calls).toEqual([]));
    await soon(() => expect(busy.frame()).toContain("starting the session…"));
    await busy.press("\u0003");
    await soon(() => expect(busy.calls).toEqual(["cancel"]));
    const failed = mount({ kind: "error", text: "the session did not start: pre-run.sh failed" });
    expect(failed.frame()).toContain("pre-run.sh failed");
  });

  test("empty tables say what to do; paths keep their last two segments", () => {
    const store = new FleetStore();
    store.loadCatalog([catalog([], [])]);
    const ui = render(<Picker store={store} title="t" onAttach={() => {}} onCreate={() => {}} onRefresh={() => {}} onCancel={() => {}} />);
    expect(ui.lastFrame()).toContain("No sessions yet. Press n");
    expect(shortPath("/a/b/c/d")).toBe("c/d");
    expect(shortPath("/tools")).toBe("/tools");
    expect(shortPath("/home/x")).toBe("/home/x");
  });
});

describe("connect picker across hosts (issue 39)", () => {
  test("sessions on two hosts: a HOST column; the offline host's session is faint with offline as its state", async () => {
    await colored(async () => {
      const { frame, store } = mount(null, TWO_HOSTS);
      const f = plain(frame());
      expect(f).toMatch(/SESSION\s+STATE\s+HOST\s+PROJECT\s+ACTIVITY\s+UPDATED/);
      expect(f).toMatch(/ses_03c\s+running\s+build-1\s+ann\/tools\s+needs you/);
      expect(f).toMatch(/ses_02b\s+offline\s+build-2\s+acme\/api\s+working\?/);
      expect(f).toMatch(/ses_01a\s+stopped\s+build-1\s+acme\/api\s+-/);
      const line = (id: string) => frame().split("\n").find((l) => l.includes(id))!;
      // SGR 2 (faint) is in effect on the offline host's row only.
      expect(styleBefore(line("ses_02b"), "ses_02b")).toContain("2");
      expect(styleBefore(line("ses_01a"), "ses_01a")).not.toContain("2");
      expect(styleBefore(line("ses_03c"), "ses_03c")).not.toContain("2");
      // The host comes back: the fleet event redraws the row online, at full intensity.
      store.apply({ version: 1, fleet_epoch: "fe1", cursor: "cur1", at: AT, type: "session_upserted", session: session("ses_02b", "aaaa0001", "running", { busy: true }, "build-2") });
      await soon(() => expect(plain(frame())).toMatch(/ses_02b\s+running\s+build-2/));
      expect(styleBefore(line("ses_02b"), "ses_02b")).not.toContain("2");
    });
  });

  test("Enter on an offline host's session says why it cannot be attached and attaches nothing; the next key clears it", async () => {
    const { frame, press, calls } = mount(null, TWO_HOSTS);
    await press(DOWN);
    await soon(() => expect(frame()).toMatch(/› ses_02b\s+offline/));
    await press("\r");
    await soon(() => expect(frame().replace(/\s+/g, " ")).toContain("ses_02b cannot be attached while its host build-2 is offline (its daemon may still run)"));
    expect(calls).toEqual([]);
    await press(DOWN);
    await soon(() => expect(frame()).not.toContain("cannot be attached"));
    await press("\r");
    await soon(() => expect(calls).toEqual(["attach ses_01a"]));
  });

  test("a summary from a gateway older than hosts (no owner_host, no host_online) is online on no named host", async () => {
    const old = (s: FleetSession): WireSession => {
      const { owner_host: _h, host_online: _o, ...rest } = s;
      return rest;
    };
    const { store, frame, press, calls } = mount(null, ONE_HOST.map(old));
    expect(store.sessions.get("ses_02b")).toMatchObject({ owner_host: null, host_online: true });
    expect(frame()).toMatch(/› ses_03c\s+running\s+ann\/tools/);
    expect(frame()).not.toContain("HOST");
    expect(store.apply({ version: 1, fleet_epoch: "fe1", cursor: "cur1", at: AT, type: "session_upserted", session: old(session("ses_04d", "aaaa0002", "running")) })).toBe(true);
    await soon(() => expect(frame()).toMatch(/› ses_04d\s+running/));
    await press("\r");
    await soon(() => expect(calls).toEqual(["attach ses_04d"]));
  });

  test("in 80 columns every line fits: session ids, hosts and project paths are cut with …, state and time stay whole", () => {
    const long = [project("aaaa0001", "/srv/work/acme/payments-gateway-service"), project("aaaa0002", "/home/ann/tools")];
    const store = new FleetStore();
    store.loadCatalog([
      catalog(long, [
        session("ses_06dqdpn800tv0cdkwygxzgca9n", "aaaa0001", "running", { attention: true }, "build-eu-west-1.internal"),
        session("ses_06dqdnk2005yq1c2q8d4w9y6b0", "aaaa0002", "stopped", null, "ci-runner-2", false),
      ]),
    ]);
    store.setFeed("live");
    const ui = renderAt(80, <Picker store={store} title="t" onAttach={() => {}} onCreate={() => {}} onRefresh={() => {}} onCancel={() => {}} />);
    try {
      const lines = plain(ui.frame()).split("\n");
      const table = lines.filter((l) => l.includes("ses_") || l.includes("SESSION"));
      expect(table).toHaveLength(3);
      for (const l of table) expect(Bun.stringWidth(l)).toBeLessThanOrEqual(80);
      expect(table[0]).toMatch(/SESSION\s+STATE\s+HOST\s+PROJECT\s+ACTIVITY\s+UPDATED/);
      // The id keeps its prefix and creation time; the state, activity and time are never cut.
      expect(table[1]).toMatch(/^› ses_06dqdpn800…\s+running\s+build-eu-…\s+acme\/payme…\s+needs you\s+2025-03-04 05:06$/);
      expect(table[2]).toMatch(/^ {2}ses_06dqdnk200…\s+offline\s+ci-runner…\s+ann\/tools\s+-\s+2025-03-04 05:06$/);
    } finally {
      ui.unmount();
    }
  });
});
