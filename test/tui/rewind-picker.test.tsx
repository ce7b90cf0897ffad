// The /rewind picker alone, against a recording stand-in for the session command route: it lists the
// prompts (newest selected), asks what goes back, runs `/rewind N MODE`; when the daemon refuses with
// checkpoint_conflict it shows the daemon's message naming the file and asks keep / overwrite / cancel.
import { describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import { DaemonRequestError } from "../../src/client/daemon-client.ts";
import { RewindPicker, type RewindOutcome } from "../../tui/components/rewind-picker.tsx";

const PROMPTS = [
  { n: 1, id: "msg_1", text: "add the parser", files: 2 },
  { n: 2, id: "msg_2", text: "rename the flag", files: 1 },
];

function route(conflict: boolean) {
  const calls: string[][] = [];
  return {
    calls,
    async sessionCommand(name: string, args: string[]) {
      calls.push([name, ...args]);
      if (args.length === 0) return { message: "Prompts", data: { prompts: PROMPTS } };
      if (conflict && !args.includes("--keep") && !args.includes("--force")) {
        throw new DaemonRequestError(409, "checkpoint_conflict", "not restored: a file was changed by someone else since the agent changed it: src/flag.ts (changed since the agent changed it). Nothing was changed.");
      }
      return { message: `Rewound to before prompt ${args[0]}`, data: { prompt_text: PROMPTS[Number(args[0]) - 1]!.text } };
    },
  };
}

async function until(check: () => boolean) {
  for (let i = 0; i < 400 && !check(); i++) await Bun.sleep(5);
}

describe("rewind picker", () => {
  test("lists the prompts with their changed files; Up, Enter, Enter rewinds files and conversation to before the first", async () => {
    const actions = route(false);
    const done: RewindOutcome[] = [];
    const ui = render(<RewindPicker actions={actions} onDone={(o) => done.push(o)} active />);
    await until(() => (ui.lastFrame() ?? "").includes("rename the flag"));
    expect(ui.lastFrame()).toContain("1. add the parser  (2 files changed)");
    expect(ui.lastFrame()).toContain("2. rename the flag  (1 file changed)");
    ui.stdin.write("\x1b[A");
    await Bun.sleep(20);
    ui.stdin.write("\r");
    await until(() => (ui.lastFrame() ?? "").includes("what goes back?"));
    expect(ui.lastFrame()).toContain('Before "add the parser": what goes back?');
    ui.stdin.write("\r");
    await until(() => done.length > 0);
    expect(actions.calls).toEqual([["rewind"], ["rewind", "1", "both"]]);
    expect(done[0]).toEqual({ command: "/rewind 1 both", message: "Rewound to before prompt 1", failed: false, promptText: "add the parser" });
  });

  test("a conflict names the file and asks; keep runs the rewind again with --keep", async () => {
    const actions = route(true);
    const done: RewindOutcome[] = [];
    const ui = render(<RewindPicker actions={actions} onDone={(o) => done.push(o)} active />);
    await until(() => (ui.lastFrame() ?? "").includes("rename the flag"));
    ui.stdin.write("\r");
    await until(() => (ui.lastFrame() ?? "").includes("what goes back?"));
    ui.stdin.write("3");
    await until(() => (ui.lastFrame() ?? "").includes("Keep the changed files"));
    expect(ui.lastFrame()).toContain("src/flag.ts");
    expect(ui.lastFrame()).toContain("Nothing was changed.");
    ui.stdin.write("1");
    await until(() => done.length > 0);
    expect(actions.calls).toEqual([["rewind"], ["rewind", "2", "code"], ["rewind", "2", "code", "--keep"]]);
    expect(done[0]).toMatchObject({ command: "/rewind 2 code --keep", failed: false });
    expect(done[0]!.promptText).toBeUndefined();
  });

  test("Esc cancels: nothing runs", async () => {
    const actions = route(false);
    const done: RewindOutcome[] = [];
    const ui = render(<RewindPicker actions={actions} onDone={(o) => done.push(o)} active />);
    await until(() => (ui.lastFrame() ?? "").includes("rename the flag"));
    ui.stdin.write("\x1b");
    await until(() => done.length > 0);
    expect(actions.calls).toEqual([["rewind"]]);
    expect(done[0]).toMatchObject({ command: null, failed: false });
  });
});
