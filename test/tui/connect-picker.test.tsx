// The `agent connect` picker (ink-testing-library): both tables, Tab / n / Esc / r / Enter / Ctrl+C, paths
// shortened to their last two segments, and a fleet event applied to the store redrawing the row live.
import { describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import type { FleetProject, FleetSession } from "../../src/protocol/fleet-event.ts";
import { FleetStore, shortPath, type CatalogPage } from "../../tui/connect/fleet-store.ts";
import { Picker, type PickerStatus } from "../../tui/connect/picker.tsx";

const AT = "2025-03-04T05:06:07.000Z";
const project = (id: string, path: string): FleetProject => ({ project_id: id, path, config_name: "default", registered_at: AT, updated_at: AT });
const session = (id: string, projectId: string, state: FleetSession["state"], summary: Partial<NonNullable<FleetSession["summary"]>> | null = null): FleetSession => ({
  session_id: id,
  project_id: projectId,
  launch_mode: "project_direct",
  state,
  daemon_epoch: "ep1",
  updated_at: AT,
  summary: summary ? { version: 1, daemon_epoch: "ep1", cursor: "c", busy: false, attention: false, history_checkpoint: "", history_total_items: 0, ...summary } : null,
  observed_at: summary ? AT : null,
  stale: false,
  host_online: true,
});

function catalog(projects: FleetProject[], sessions: FleetSession[]): CatalogPage {
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

function mount(status: PickerStatus | null = null) {
  const store = new FleetStore();
  store.loadCatalog([
    catalog(
      [project("aaaa0001", "/srv/work/acme/api"), project("aaaa0002", "/home/ann/tools")],
      [session("ses_01a", "aaaa0001", "stopped"), session("ses_02b", "aaaa0001", "running", { busy: true }), session("ses_03c", "aaaa0002", "running", { attention: true })],
    ),
  ]);
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

const DOWN = "\u001b[B";
const UP = "\u001b[A";
const ESC = "\u001b";

describe("connect picker", () => {
  test("sessions table first, newest on top, with state, short project path and activity", () => {
    const { frame } = mount();
    const f = frame();
    expect(f).toContain("Sessions (3)");
    expect(f).toContain("Projects (2)");
    expect(f).toMatch(/SESSION\s+STATE\s+PROJECT\s+ACTIVITY\s+UPDATED/);
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
