// Themes in a real terminal (the compiled binary on a PTY feeding @xterm/headless, which answers the
// terminal queries a real one does): NO_COLOR writes no color escape through a whole turn; `tui.theme:
// light` in the global config draws the light palette in truecolor and the facet in its light color;
// auto reads a light background from the terminal's OSC 11 answer; a theme that cannot be used shows an
// error line and the view still opens; the facet's color follows catalog changes; `agent config
// validate` names a bad theme with file and line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import type { TermSession } from "../tui/terminal.ts";
import { scriptedProject, send, Terminals, type TuiProject } from "./tui-harness.ts";
import { colorEscapes } from "../tui/sgr.ts";

const SCRIPT = `responses:
  - text: "Listing **files**:\\n\\n\`\`\`sh\\nls\\n\`\`\`"
    tool_calls:
      - { name: shell, arguments: { command: "echo themed-output" } }
  - text: "Done."
`;

const terminals = new Terminals();

// COLORTERM=truecolor: colors are drawn as on a modern terminal, so their absence means something.
const project = (env: Record<string, string> = {}, globalConfig?: string) => scriptedProject(SCRIPT, { env: { COLORTERM: "truecolor", ...env }, globalConfig });
const start = (p: TuiProject, background?: string) => terminals.start(p, ["new"], background);

/** Waits for the view to be ready; the session id it printed. */
async function opened(t: TermSession, p: TuiProject): Promise<string> {
  await t.waitFor("Type a message", "the prompt editor");
  const id = terminals.sessionOf(t, p);
  await t.waitFor(/ready\s/, "the connection");
  return id;
}

const rgb = (hex: string) => `\x1b[38;2;${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(";")}m`;
const OSC11_QUERY = "\x1b]11;?";

beforeAll(() => ensureBinary(), 180_000);

afterAll(() => terminals.closeAll(), 60_000);

describe("themes in a terminal (compiled binary)", () => {
  test("NO_COLOR=1: a turn with markdown, a permission ask and a tool call writes no color escape", async () => {
    const p = project({ NO_COLOR: "1" }, "tui:\n  theme: light\n");
    const t = start(p, "#ffffff");
    await opened(t, p);
    await send(t, "list them");
    await t.waitFor("Allow shell echo themed-output?", "the permission dialog");
    t.write("1");
    await t.waitFor("Done.", "the answer after the tool ran");
    await t.waitFor(/ready\s/, "the turn to end");
    expect(t.text()).toContain("themed-output");
    expect(t.text()).toContain("facet execute");
    expect(colorEscapes(t.raw)).toEqual([]);
    expect(t.raw).toContain("\x1b[2m");
    // Colors are off whatever the terminal's background is, so it is not even asked.
    expect(t.raw).not.toContain(OSC11_QUERY);
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
  }, 60_000);

  test("tui.theme: light in the global config: the light palette in truecolor, the facet in its light color, no query", async () => {
    const p = project({}, "tui:\n  theme: light\n");
    const t = start(p);
    await opened(t, p);
    expect(t.raw).toContain(rgb("#0969da")); // the prompt editor's border and marker
    expect(t.raw).toContain(rgb("#1a7f37")); // ready
    // The execute facet in its light color, once the daemon catalog is read.
    await t.waitFor((s) => s.raw.includes(`${rgb("#1f6feb")}execute`), "the facet in its light color");
    expect(colorEscapes(t.raw).filter((e) => !e.startsWith("\x1b[38;2;") && e !== "\x1b[39m")).toEqual([]);
    expect(t.raw).not.toContain(OSC11_QUERY);
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
  }, 60_000);

  test("auto asks the terminal: a white background gives the light palette, none (DA1 only) the dark one", async () => {
    const light = project();
    const t = start(light, "#fdf6e3");
    await opened(t, light);
    expect(t.raw.startsWith(`${OSC11_QUERY}\x1b\\\x1b[c`)).toBe(true);
    expect(t.raw).toContain(rgb("#0969da"));
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);

    const dark = project();
    const d = start(dark);
    await opened(d, dark);
    expect(d.raw).toContain(OSC11_QUERY);
    expect(d.raw).not.toContain("\x1b[38;2;9;105;218m");
    expect(d.raw).toContain("\x1b[34m"); // the dark palette's prompt color: the terminal's own blue
    await d.waitFor((s) => s.raw.includes(`${rgb("#58a6ff")}execute`), "the facet in its dark color");
    // Keys still reach the view after the query.
    d.write("\x04");
    expect(await d.proc.exited).toBe(0);
  }, 60_000);

  test("the facet's color follows the daemon catalog: a recolored facet file and a reload repaint the status line", async () => {
    const p = project({ COLORFGBG: "15;0" });
    mkdirSync(join(p.root, ".agent", "facets"));
    const facet = (dark: string) => `---\ndescription: reviews\ncolors: { light: "#0969da", dark: "${dark}" }\n---\nReview the change.\n`;
    writeFileSync(join(p.root, ".agent", "facets", "review.md"), facet("#ff8800"));
    writeFileSync(join(p.root, ".agent", "config.yaml"), "providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\nactive_session:\n  default_facet: review\n");
    const t = start(p);
    const id = await opened(t, p);
    await t.waitFor((s) => s.raw.includes(`${rgb("#ff8800")}review`), "the facet in its dark color from the facet file");
    writeFileSync(join(p.root, ".agent", "facets", "review.md"), facet("#00cc66"));
    // SIGHUP makes the daemon read its config again; the changed facet publishes a new catalog revision.
    const daemon = JSON.parse(readFileSync(join(p.env.XDG_DATA_HOME!, "agent", "sessions", id, "daemon.json"), "utf8")) as { pid: number };
    process.kill(daemon.pid, "SIGHUP");
    await t.waitFor((s) => s.raw.includes(`${rgb("#00cc66")}review`), "the facet in its new color after the catalog changed");
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
  }, 60_000);

  test("a theme file that does not exist: an error line naming it, and the view opens with the auto theme", async () => {
    const p = project({ COLORFGBG: "0;15" }, "tui:\n  theme: nord\n");
    const t = start(p);
    await opened(t, p);
    await t.waitFor("cannot read the theme file", "the theme problem");
    // The line wraps wherever the temp path's length puts it: compared without the layout's whitespace.
    expect(t.text().replace(/\s+/g, "")).toContain(`${join(p.configDir, "themes", "nord.yaml")}(itdoesnotexist)`);
    expect(t.raw).toContain(rgb("#0969da"));
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
  }, 60_000);

  test("agent config validate: a bad theme name with its file, line and the allowed values", () => {
    const p = project({}, "# display\ntui:\n  theme: ../../etc/passwd\n");
    const r = Bun.spawnSync([BINARY, "config", "validate"], { cwd: p.root, env: p.env });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.exitCode).not.toBe(0);
    expect(out).toContain(`${join(p.configDir, "config.yaml")}:3:3: error: tui.theme: '../../etc/passwd' is not a theme name (allowed: auto, dark, light, or the name of a theme file`);
  });
});
