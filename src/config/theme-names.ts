// `tui.theme` values: the built-in themes, and the names a theme file may have. Shared by the config
// checks (`agent config validate`) and the view, which reads `<config dir>/themes/NAME.yaml`.

export const BUILTIN_THEMES = ["auto", "dark", "light"] as const;

/** A plain file name (no path separators, no dots), so `tui.theme` never reads outside the themes dir. */
export const THEME_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export const THEME_ALLOWED = "auto, dark, light, or the name of a theme file <global config dir>/themes/NAME.yaml (NAME: letters, digits, '_' and '-', at most 64)";

/** Why `value` cannot be a `tui.theme`, or null when it can. */
export function themeNameProblem(value: string): string | null {
  if ((BUILTIN_THEMES as readonly string[]).includes(value) || THEME_NAME_PATTERN.test(value)) return null;
  return `'${value}' is not a theme name`;
}
