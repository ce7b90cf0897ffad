// Picks the view's theme from `tui.theme` and the environment. NO_COLOR wins over everything. A theme
// that cannot be used (a bad name, a missing or invalid file) never keeps the user out of their session:
// the view opens with the auto theme and shows the problem as an error line.
import { globalConfigDir } from "../../src/config/files.ts";
import { THEME_ALLOWED } from "../../src/config/theme-names.ts";
import { configuredTheme } from "./config.ts";
import { detectBackground, type QueryStreams } from "./detect.ts";
import { DARK_THEME, LIGHT_THEME, noColorRequested, noColorTheme, type Theme } from "./theme.ts";

export interface ResolvedTheme {
  theme: Theme;
  /** Why the configured theme is not the one in use. */
  problem: string | null;
}

export interface ResolveOptions {
  /** The terminal to ask for its background (auto); null: never ask. */
  streams: QueryStreams | null;
  queryTimeoutMs?: number;
}

export async function resolveTheme(setting: unknown, env: Record<string, string | undefined>, options: ResolveOptions): Promise<ResolvedTheme> {
  if (noColorRequested(env)) return { theme: noColorTheme(), problem: null };
  const name = setting ?? "auto";
  if (name === "dark") return { theme: DARK_THEME, problem: null };
  if (name === "light") return { theme: LIGHT_THEME, problem: null };
  const auto = async () => ((await detectBackground(env, options.streams, options.queryTimeoutMs)) === "light" ? LIGHT_THEME : DARK_THEME);
  if (name === "auto") return { theme: await auto(), problem: null };
  if (typeof name !== "string") return { theme: await auto(), problem: `tui.theme: ${JSON.stringify(name)} is not a theme name; allowed: ${THEME_ALLOWED} (using the auto theme)` };
  const { loadThemeFile, ThemeError } = await import("./theme-file.ts");
  try {
    return { theme: loadThemeFile(globalConfigDir(env), name), problem: null };
  } catch (error) {
    if (!(error instanceof ThemeError)) throw error;
    return { theme: await auto(), problem: `${error.message} (using the auto theme)` };
  }
}

let forThisTerminal: Promise<ResolvedTheme> | null = null;

/**
 * The theme for this process's terminal, resolved once: the `agent connect` picker and the view that
 * follows it share one answer, so the terminal is asked at most once. Call it before Ink renders.
 */
export function terminalTheme(streams: QueryStreams, env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Promise<ResolvedTheme> {
  forThisTerminal ??= (async () => {
    // Only auto asks the terminal: an explicit dark or light (or NO_COLOR) costs the first frame nothing.
    const setting = noColorRequested(env) ? null : await configuredTheme(cwd, env);
    return resolveTheme(setting, env, { streams });
  })();
  return forThisTerminal;
}
