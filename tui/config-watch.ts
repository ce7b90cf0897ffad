// A running session keeps the config it started with (its daemon loaded it once). The view watches the
// config files (global and project, every format) and says so when one changes, with the way to load it.
import { statSync } from "node:fs";
import { join } from "node:path";
import { findProject, globalConfigDir, type Env } from "../src/config/files.ts";
import { CONFIG_EXTENSIONS } from "../src/config/parse.ts";

function stamp(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Calls `onChange` with each config file that appears, changes or goes away; polls every `intervalMs`. */
export function watchConfigFiles(cwd: string, env: Env, onChange: (path: string) => void, intervalMs = 2000): () => void {
  const dirs = [globalConfigDir(env)];
  const project = findProject(cwd, env);
  if (project.agentDir) dirs.push(project.agentDir);
  const paths = dirs.flatMap((d) => CONFIG_EXTENSIONS.map((ext) => join(d, `config.${ext}`)));
  const seen = new Map(paths.map((p) => [p, stamp(p)]));
  const timer = setInterval(() => {
    for (const p of paths) {
      const now = stamp(p);
      if (now === seen.get(p)) continue;
      seen.set(p, now);
      onChange(p);
    }
  }, intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
