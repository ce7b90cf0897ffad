// A theme file: `tui.theme: NAME` (anything but auto, dark and light) reads <global config dir>/themes/NAME.yaml:
//
//   background: light        # dark (default) or light: the palette it starts from, and facet colors' variant
//   colors:                  # any of COLOR_KEYS; each #RRGGBB or an ANSI color name
//     warning: "#b08800"
//
// Every problem names the file, the field, the value found and what is allowed. Imported only when a
// theme file is named, so the YAML parser's error reporting costs the usual launch nothing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isParseFailure, parseConfigText } from "../../src/config/parse.ts";
import { THEME_ALLOWED, THEME_NAME_PATTERN } from "../../src/config/theme-names.ts";
import { BUILTIN_PALETTES, COLOR_KEYS, type ColorKey, type Theme } from "./theme.ts";

export class ThemeError extends Error {}

const HEX = /^#[0-9a-fA-F]{6}$/;
const BASE_NAMES = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"];
/** The names Ink's `color` accepts: the terminal's own 16 colors. */
export const ANSI_NAMES = [...BASE_NAMES, "gray", "grey", ...BASE_NAMES.map((n) => `${n}Bright`)];

export function themeFilePath(configDir: string, name: string): string {
  if (!THEME_NAME_PATTERN.test(name)) throw new ThemeError(`tui.theme: '${name}' is not a theme name; allowed: ${THEME_ALLOWED}`);
  return join(configDir, "themes", `${name}.yaml`);
}

export function loadThemeFile(configDir: string, name: string): Theme {
  const path = themeFilePath(configDir, name);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ThemeError(`tui.theme '${name}': cannot read the theme file ${path} (${code === "ENOENT" ? "it does not exist" : (code ?? String(error))}); allowed: ${THEME_ALLOWED}`);
  }
  const parsed = parseConfigText(path, text, "yaml");
  if (isParseFailure(parsed)) throw new ThemeError(`theme file ${path}${parsed.position ? `:${parsed.position.line}:${parsed.position.column}` : ""}: ${parsed.message}`);
  const data = parsed.data;
  const bad = (field: string, value: unknown, allowed: string) => new ThemeError(`theme file ${path}: field '${field}' is ${JSON.stringify(value) ?? String(value)}; allowed: ${allowed}`);
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw bad("(top level)", data, "a map with `background` and `colors`");
  const doc = data as Record<string, unknown>;
  for (const key of Object.keys(doc)) if (key !== "background" && key !== "colors") throw bad(key, doc[key], "only the fields background and colors");
  const background = doc.background ?? "dark";
  if (background !== "dark" && background !== "light") throw bad("background", background, "dark or light");
  const colors = { ...BUILTIN_PALETTES[background] };
  const given = doc.colors ?? {};
  if (given === null || typeof given !== "object" || Array.isArray(given)) throw bad("colors", given, `a map of ${COLOR_KEYS.join(", ")} to colors`);
  for (const [key, value] of Object.entries(given)) {
    if (!(COLOR_KEYS as readonly string[]).includes(key)) throw bad(`colors.${key}`, value, `the keys ${COLOR_KEYS.join(", ")}`);
    if (typeof value !== "string" || !(HEX.test(value) || ANSI_NAMES.includes(value))) throw bad(`colors.${key}`, value, `#RRGGBB or an ANSI color name (${ANSI_NAMES.join(", ")})`);
    colors[key as ColorKey] = value;
  }
  return { name, background, colors, colored: true };
}
