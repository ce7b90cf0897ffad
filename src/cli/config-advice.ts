// Warnings only `agent config validate` gives, on top of the loader's problems: they need more than the
// config (a theme file on disk) or concern how a file is written (a secret typed into it), and a session
// starts fine with them.
import { globalConfigDir, type Env } from "../config/files.ts";
import type { LoadedConfig } from "../config/load.ts";
import { formatPath, type KeyPath, type Problem } from "../config/problems.ts";
import { BUILTIN_THEMES, themeNameProblem } from "../config/theme-names.ts";
import { isSecretKey } from "../util/redact.ts";

export async function configAdvice(loaded: LoadedConfig, env: Env): Promise<Problem[]> {
  return [...literalSecrets(loaded), ...(await themeFileProblem(loaded, env))];
}

/** A secret-named value written out in a file rather than referenced (`${VAR}`, `$(command)`). */
function literalSecrets(loaded: LoadedConfig): Problem[] {
  const out: Problem[] = [];
  for (const layer of loaded.layers) {
    const parsed = layer.parsed;
    if (!parsed) continue;
    const walk = (value: unknown, path: KeyPath) => {
      if (Array.isArray(value)) return value.forEach((v, i) => walk(v, [...path, i]));
      if (!value || typeof value !== "object") return;
      for (const [key, inner] of Object.entries(value)) {
        const here = [...path, key];
        if (typeof inner === "string" && inner.trim() && !inner.includes("$") && isSecretKey(key)) {
          const pos = parsed.locate(here);
          out.push({
            severity: "warning",
            file: layer.path,
            line: pos?.line,
            column: pos?.column,
            path: formatPath(here),
            parts: here,
            message: "is a secret written into the file: whoever reads the file, a backup or a commit of it has the secret",
            allowed: "a reference such as \"${MY_API_KEY}\" to an environment variable",
          });
        } else walk(inner, here);
      }
    };
    walk(parsed.data, []);
  }
  return out;
}

/** `tui.theme` naming a theme file that is missing or invalid: the view falls back to `auto` and says why. */
async function themeFileProblem(loaded: LoadedConfig, env: Env): Promise<Problem[]> {
  const theme = loaded.config.tui?.theme;
  if (typeof theme !== "string" || (BUILTIN_THEMES as readonly string[]).includes(theme) || themeNameProblem(theme)) return [];
  const { loadThemeFile } = await import("../../tui/theme/theme-file.ts");
  try {
    loadThemeFile(globalConfigDir(env), theme);
    return [];
  } catch (error) {
    const parts = ["tui", "theme"];
    const layer = loaded.layers.find((l) => l.name === loaded.origins.get("tui.theme"));
    const pos = layer?.parsed?.locate(parts);
    return [
      {
        severity: "warning",
        file: layer?.path,
        line: pos?.line,
        column: pos?.column,
        path: "tui.theme",
        parts,
        message: `${(error as Error).message.replace(/^tui\.theme:?\s*/, "")}; until it is fixed the view uses auto`,
      },
    ];
  }
}
