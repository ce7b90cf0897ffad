// Runs the picker on the terminal until the person has a running session to attach to (resolves with its
// id) or cancels (null). Starting work (resume, create, waiting for a daemon) shows in the picker's status
// line; a failure is shown there and the person picks again. The fleet feed runs while the picker shows.
import { render } from "ink";
import { useState, type ReactNode } from "react";
import type { FleetProject, FleetSession } from "../../src/protocol/fleet-event.ts";
import { terminalTheme } from "../theme/resolve.ts";
import { ThemeProvider } from "../theme/theme.ts";
import { rawBeforeFirstFrame } from "../raw-before-first-frame.ts";
import { FleetFeed, type GatewayGet } from "./fleet-feed.ts";
import { FleetStore, shortPath } from "./fleet-store.ts";
import { Picker, type PickerStatus } from "./picker.tsx";

export interface PickerRunOptions {
  title: string;
  get: GatewayGet;
  /** Makes a session run (resume a stopped one, wait for a starting one); resolves with its id. */
  attach(session: FleetSession): Promise<string>;
  /** Creates a session in a project and waits until it runs; resolves with its id. */
  create(project: FleetProject): Promise<string>;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
}

export async function runPicker(options: PickerRunOptions): Promise<string | null> {
  // Before Ink takes stdin (the background query reads its reply there); the view after the picker reuses it.
  const { theme, problem } = await terminalTheme({ stdin: options.stdin ?? process.stdin, stdout: options.stdout ?? process.stdout });
  const store = new FleetStore();
  const feed = new FleetFeed(options.get, store);
  const stop = new AbortController();
  let done!: (id: string | null) => void;
  const chosen = new Promise<string | null>((resolve) => (done = resolve));
  const following = feed.run(stop.signal);
  const cooked = rawBeforeFirstFrame(options.stdin ?? process.stdin);
  const ink = render(
    <ThemeProvider value={theme}>
      <PickerApp store={store} options={options} feed={feed} done={done} problem={problem} />
    </ThemeProvider>,
    { stdin: options.stdin, stdout: options.stdout, exitOnCtrlC: false },
  );
  const id = await chosen;
  stop.abort();
  ink.unmount();
  await ink.waitUntilExit().catch(() => {});
  cooked();
  await following;
  return id;
}

function PickerApp({ store, options, feed, done, problem }: { store: FleetStore; options: PickerRunOptions; feed: FleetFeed; done(id: string | null): void; problem: string | null }): ReactNode {
  // A theme that could not be used is the first thing said; any action's status replaces it.
  const [status, setStatus] = useState<PickerStatus | null>(problem ? { kind: "error", text: problem } : null);
  const start = (what: string, work: () => Promise<string>) => {
    setStatus({ kind: "busy", text: `${what}… (Ctrl+C cancels)` });
    work().then(
      (id) => done(id),
      (error: unknown) => setStatus({ kind: "error", text: error instanceof Error ? error.message : String(error) }),
    );
  };
  return (
    <Picker
      store={store}
      title={options.title}
      status={status}
      onAttach={(s) => start(s.state === "running" ? `Attaching to ${s.session_id}` : s.state === "starting" ? `Waiting for ${s.session_id} to start` : `Resuming ${s.session_id}`, () => options.attach(s))}
      onCreate={(p) => start(`Starting a session in ${shortPath(p.path)}`, () => options.create(p))}
      onRefresh={() => {
        setStatus(null);
        feed.refresh();
      }}
      onCancel={() => done(null)}
    />
  );
}
