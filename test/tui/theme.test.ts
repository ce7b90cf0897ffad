// Picking the theme: COLORFGBG, the terminal's answer to an OSC 11 query (fake terminal streams that
// reply, stay silent, or answer DA1 only), explicit dark/light, NO_COLOR, theme files (good and bad), and
// how `tui.theme` is read from the config layers and checked by the config loader.
import { describe, expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { formatProblem } from "../../src/config/problems.ts";
import { configuredTheme } from "../../tui/theme/config.ts";
import { backgroundFromColorFgBg, backgroundFromOsc11, detectBackground, queryTerminalBackground, type QueryStreams } from "../../tui/theme/detect.ts";
import { resolveTheme } from "../../tui/theme/resolve.ts";
import { COLOR_KEYS, DARK_THEME, LIGHT_THEME } from "../../tui/theme/theme.ts";

const WHITE = "\x1b]11;rgb:ffff/ffff/ffff\x1b\\";
const DA1 = "\x1b[?62;22c";

/** A terminal on the other end of the streams: `answer` is what it replies to the queries (null: nothing). */
function fakeTerminal(answer: string[] | null) {
  const queued: Buffer[] = [];
  const stdin = Object.assign(new EventEmitter(), {
    isTTY: true,
    raw: false,
    setRawMode(on: boolean) {
      stdin.raw = on;
      return stdin;
    },
    read: () => queued.shift() ?? null,
  });
  const written: string[] = [];
  const stdout = {
    isTTY: true,
    write(data: string) {
      written.push(data);
      // Replies arrive later, possibly split across reads.
      if (answer)
        for (const chunk of answer)
          setTimeout(() => {
            queued.push(Buffer.from(chunk, "latin1"));
            stdin.emit("readable");
          }, 1);
      return true;
    },
  };
  return { streams: { stdin, stdout } as unknown as QueryStreams, stdin, written };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "agent-theme-"));
}

describe("background detection", () => {
  test("COLORFGBG: the last field is the background's ANSI index", () => {
    expect(backgroundFromColorFgBg("15;0")).toBe("dark");
    expect(backgroundFromColorFgBg("0;15")).toBe("light");
    expect(backgroundFromColorFgBg("0;default;7")).toBe("light");
    expect(backgroundFromColorFgBg("7;8")).toBe("dark");
    expect(backgroundFromColorFgBg("default;default")).toBeNull();
    expect(backgroundFromColorFgBg("0;99")).toBeNull();
    expect(backgroundFromColorFgBg(undefined)).toBeNull();
  });

  test("an OSC 11 reply is read by luminance, with 2- or 4-digit channels and either terminator", () => {
    expect(backgroundFromOsc11(WHITE)).toBe("light");
    expect(backgroundFromOsc11("\x1b]11;rgb:1e/1e/2e\x07")).toBe("dark");
    expect(backgroundFromOsc11("\x1b]11;rgb:fdf6/f6f6/e3e3\x1b\\")).toBe("light");
    expect(backgroundFromOsc11("\x1b]11;rgba:0000/0000/0000/ffff\x07")).toBe("dark");
    expect(backgroundFromOsc11("garbage")).toBeNull();
  });

  test("the terminal answers OSC 11 then DA1 in pieces: light; stdin is left cooked with no listener", async () => {
    const t = fakeTerminal([WHITE.slice(0, 9), WHITE.slice(9) + DA1.slice(0, 3), DA1.slice(3)]);
    expect(await queryTerminalBackground(t.streams, 5_000)).toBe("light");
    expect(t.written).toEqual(["\x1b]11;?\x1b\\\x1b[c"]);
    expect(t.stdin.raw).toBe(false);
    expect(t.stdin.listenerCount("readable")).toBe(0);
  });

  test("a terminal that answers DA1 only ends the wait at once with no answer: dark", async () => {
    const t = fakeTerminal([DA1]);
    // The timeout is far away: only the DA1 reply can end this wait.
    expect(await queryTerminalBackground(t.streams, 60_000)).toBeNull();
    expect(await detectBackground({}, fakeTerminal([DA1]).streams, 60_000)).toBe("dark");
  });

  test("a terminal that answers nothing: the query times out, dark", async () => {
    const t = fakeTerminal(null);
    expect(await detectBackground({}, t.streams, 20)).toBe("dark");
    expect(t.stdin.raw).toBe(false);
    expect(t.stdin.listenerCount("readable")).toBe(0);
  });

  test("COLORFGBG answers before the terminal is asked; streams that are not terminals are never asked", async () => {
    const t = fakeTerminal([WHITE, DA1]);
    expect(await detectBackground({ COLORFGBG: "15;0" }, t.streams)).toBe("dark");
    expect(t.written).toEqual([]);
    const piped = fakeTerminal([WHITE, DA1]);
    (piped.stdin as { isTTY: boolean }).isTTY = false;
    expect(await detectBackground({}, piped.streams)).toBe("dark");
    expect(piped.written).toEqual([]);
  });
});

describe("resolveTheme", () => {
  test("dark and light never ask the terminal; auto follows its answer", async () => {
    const t = fakeTerminal([WHITE, DA1]);
    expect((await resolveTheme("dark", {}, { streams: t.streams })).theme).toBe(DARK_THEME);
    expect((await resolveTheme("light", {}, { streams: t.streams })).theme).toBe(LIGHT_THEME);
    expect(t.written).toEqual([]);
    expect(await resolveTheme(null, {}, { streams: t.streams })).toEqual({ theme: LIGHT_THEME, problem: null });
    expect((await resolveTheme("auto", { COLORFGBG: "15;0" }, { streams: null })).theme).toBe(DARK_THEME);
  });

  test("NO_COLOR (any non-empty value) wins over every setting: no color at all", async () => {
    for (const setting of ["dark", "light", "auto", "missing-file"]) {
      const r = await resolveTheme(setting, { NO_COLOR: "1" }, { streams: null });
      expect(r.problem).toBeNull();
      expect(r.theme.colored).toBe(false);
      expect(COLOR_KEYS.map((k) => r.theme.colors[k])).toEqual(COLOR_KEYS.map(() => undefined));
    }
    expect((await resolveTheme("light", { NO_COLOR: "" }, { streams: null })).theme).toBe(LIGHT_THEME);
  });

  test("a theme file: its background's palette with its own colors over it", async () => {
    const config = tempDir();
    mkdirSync(join(config, "agent", "themes"), { recursive: true });
    writeFileSync(join(config, "agent", "themes", "paper.yaml"), 'background: light\ncolors:\n  warning: "#b08800"\n  accent: magentaBright\n');
    const r = await resolveTheme("paper", { XDG_CONFIG_HOME: config }, { streams: null });
    expect(r.problem).toBeNull();
    expect(r.theme).toMatchObject({ name: "paper", background: "light", colored: true });
    expect(r.theme.colors.warning).toBe("#b08800");
    expect(r.theme.colors.accent).toBe("magentaBright");
    expect(r.theme.colors.error).toBe(LIGHT_THEME.colors.error);
  });

  test("a bad theme file falls back to auto; the problem names the file, the field, the value and what is allowed", async () => {
    const config = tempDir();
    const dir = join(config, "agent", "themes");
    mkdirSync(dir, { recursive: true });
    const env = { XDG_CONFIG_HOME: config, COLORFGBG: "0;15" };
    writeFileSync(join(dir, "field.yaml"), "background: light\nforeground: black\n");
    writeFileSync(join(dir, "color.yaml"), "colors:\n  warning: orange\n");
    writeFileSync(join(dir, "key.yaml"), 'colors:\n  warnings: "#ffffff"\n');
    writeFileSync(join(dir, "bg.yaml"), "background: sepia\n");
    writeFileSync(join(dir, "broken.yaml"), "colors: [\n");

    const field = await resolveTheme("field", env, { streams: null });
    expect(field.theme).toBe(LIGHT_THEME);
    expect(field.problem).toBe(`theme file ${join(dir, "field.yaml")}: field 'foreground' is "black"; allowed: only the fields background and colors (using the auto theme)`);
    const color = await resolveTheme("color", env, { streams: null });
    expect(color.problem).toContain(`theme file ${join(dir, "color.yaml")}: field 'colors.warning' is "orange"; allowed: #RRGGBB or an ANSI color name (black, red,`);
    expect((await resolveTheme("key", env, { streams: null })).problem).toContain("field 'colors.warnings' is \"#ffffff\"; allowed: the keys accent, prompt,");
    expect((await resolveTheme("bg", env, { streams: null })).problem).toContain("field 'background' is \"sepia\"; allowed: dark or light");
    expect((await resolveTheme("broken", env, { streams: null })).problem).toMatch(new RegExp(`^theme file ${join(dir, "broken.yaml")}:\\d+:\\d+: invalid YAML: `));
  });

  test("a missing theme file or a name that is not one: auto, and the problem says where it looked or what is allowed", async () => {
    const config = tempDir();
    const env = { XDG_CONFIG_HOME: config, COLORFGBG: "15;0" };
    const missing = await resolveTheme("nord", env, { streams: null });
    expect(missing.theme).toBe(DARK_THEME);
    expect(missing.problem).toBe(
      `tui.theme 'nord': cannot read the theme file ${join(config, "agent", "themes", "nord.yaml")} (it does not exist); allowed: auto, dark, light, or the name of a theme file <global config dir>/themes/NAME.yaml (NAME: letters, digits, '_' and '-', at most 64) (using the auto theme)`,
    );
    expect((await resolveTheme("../../etc/passwd", env, { streams: null })).problem).toStartWith("tui.theme: '../../etc/passwd' is not a theme name; allowed: auto, dark, light");
    expect((await resolveTheme(7, env, { streams: null })).problem).toStartWith("tui.theme: 7 is not a theme name; allowed:");
  });
});

describe("tui.theme in the config", () => {
  function layers(global: string | null, project: string | null, ext = "yaml") {
    const base = tempDir();
    const env = { HOME: join(base, "home"), XDG_CONFIG_HOME: join(base, "config"), THEME_FROM_ENV: "light" };
    mkdirSync(join(base, "config", "agent"), { recursive: true });
    if (global !== null) writeFileSync(join(base, "config", "agent", `config.${ext}`), global);
    const root = join(base, "proj");
    mkdirSync(join(root, ".git"), { recursive: true });
    mkdirSync(join(root, ".agent"));
    if (project !== null) writeFileSync(join(root, ".agent", `config.${ext}`), project);
    return { cwd: root, env };
  }

  test("the project layer over the global one; null erases; ${VAR} is substituted", async () => {
    let l = layers("tui:\n  theme: light\n", null);
    expect(await configuredTheme(l.cwd, l.env)).toBe("light");
    l = layers("tui:\n  theme: light\n", "tui:\n  theme: dark\n");
    expect(await configuredTheme(l.cwd, l.env)).toBe("dark");
    l = layers("tui:\n  theme: light\n", "tui: null\n");
    expect(await configuredTheme(l.cwd, l.env)).toBeNull();
    l = layers("tui:\n  theme: light\n", "tui:\n  theme: null\n");
    expect(await configuredTheme(l.cwd, l.env)).toBeNull();
    // In the global layer: a project value reading the environment waits for trust (docs/security.md).
    l = layers("tui:\n  theme: ${THEME_FROM_ENV}\n", null);
    expect(await configuredTheme(l.cwd, l.env)).toBe("light");
    l = layers('{"tui": {"theme": "dark"}}', null, "json");
    expect(await configuredTheme(l.cwd, l.env)).toBe("dark");
    l = layers('[tui]\ntheme = "light"\n', null, "toml");
    expect(await configuredTheme(l.cwd, l.env)).toBe("light");
    l = layers(null, null);
    expect(await configuredTheme(l.cwd, l.env)).toBeNull();
  });

  test("config validation reports a bad theme name with its file, line and the allowed values", () => {
    const base = tempDir();
    const root = join(base, "proj");
    mkdirSync(join(root, ".agent"), { recursive: true });
    const file = join(root, ".agent", "config.yaml");
    writeFileSync(file, "# display\ntui:\n  theme: ../dark\n");
    const loaded = loadConfig({ cwd: root, env: { HOME: join(base, "home"), XDG_CONFIG_HOME: join(base, "config") } });
    const problems = loaded.problems.filter((p) => p.path === "tui.theme").map(formatProblem);
    expect(problems).toEqual([
      `${file}:3:3: error: tui.theme: '../dark' is not a theme name (allowed: auto, dark, light, or the name of a theme file <global config dir>/themes/NAME.yaml (NAME: letters, digits, '_' and '-', at most 64))`,
    ]);
    writeFileSync(file, "tui:\n  theme: solarized-light\n");
    expect(loadConfig({ cwd: root, env: { HOME: join(base, "home"), XDG_CONFIG_HOME: join(base, "config") } }).problems.filter((p) => p.path === "tui.theme")).toEqual([]);
  });
});
