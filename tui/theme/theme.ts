// The view's colors. Components name what a color means (warning, accent, a diff line) and take the value
// from the active theme, so `tui.theme` and NO_COLOR act in one place. A color is anything Ink's <Text
// color> accepts: an ANSI name (the terminal's own palette) or #RRGGBB. `undefined` draws in the
// terminal's default color: the NO_COLOR theme is all `undefined`, so no color escape is ever written.
import { createContext, useContext } from "react";

export const COLOR_KEYS = [
  "accent",
  "prompt",
  "success",
  "warning",
  "error",
  "muted",
  "selection",
  "code",
  "code_block",
  "link",
  "diff_added",
  "diff_removed",
  "diff_hunk",
] as const;
export type ColorKey = (typeof COLOR_KEYS)[number];
export type Palette = Record<ColorKey, string | undefined>;

export interface Theme {
  /** `dark`, `light`, `no-color`, or the theme file's name. */
  name: string;
  /** Which variant of a facet's colors suits the background (NO_COLOR: none is used). */
  background: "dark" | "light";
  colors: Palette;
  /** False under NO_COLOR: facet colors from the catalog are not used either. */
  colored: boolean;
}

/** The terminal's own palette: ANSI names follow what the user set up for a dark background. */
const DARK: Palette = {
  accent: "magenta",
  prompt: "blue",
  success: "green",
  warning: "yellow",
  error: "red",
  muted: "gray",
  selection: "cyan",
  code: "cyan",
  code_block: "yellow",
  link: "blue",
  diff_added: "green",
  diff_removed: "red",
  diff_hunk: "cyan",
};

/** Fixed colors that read on a white background (ANSI yellow and cyan often do not). */
const LIGHT: Palette = {
  accent: "#8250df",
  prompt: "#0969da",
  success: "#1a7f37",
  warning: "#9a6700",
  error: "#cf222e",
  muted: "#6e7781",
  selection: "#0550ae",
  code: "#953800",
  code_block: "#6f4e00",
  link: "#0969da",
  diff_added: "#1a7f37",
  diff_removed: "#cf222e",
  diff_hunk: "#0550ae",
};

export const BUILTIN_PALETTES: Record<"dark" | "light", Palette> = { dark: DARK, light: LIGHT };

export const DARK_THEME: Theme = { name: "dark", background: "dark", colors: DARK, colored: true };
export const LIGHT_THEME: Theme = { name: "light", background: "light", colors: LIGHT, colored: true };

export function noColorTheme(): Theme {
  const colors = Object.fromEntries(COLOR_KEYS.map((k) => [k, undefined])) as Palette;
  return { name: "no-color", background: "dark", colors, colored: false };
}

/** NO_COLOR (https://no-color.org): any non-empty value turns colors off; bold, dim and inverse stay. */
export function noColorRequested(env: Record<string, string | undefined>): boolean {
  return (env.NO_COLOR ?? "") !== "";
}

/** A facet's color for this theme, from the catalog's `colors: {light, dark}`. */
export function facetColor(theme: Theme, colors: { light: string; dark: string } | undefined): string | undefined {
  if (!theme.colored || !colors) return undefined;
  return colors[theme.background];
}

const ThemeContext = createContext<Theme>(DARK_THEME);
export const ThemeProvider = ThemeContext.Provider;

export function useTheme(): Theme {
  return useContext(ThemeContext);
}
