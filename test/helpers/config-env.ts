import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";

/** A throwaway HOME with a global config dir and a project (a git repo) to write config files into. */
export function configEnv() {
  const root = mkdtempSync(join(tmpdir(), "agent-cfg-"));
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(join(home, ".config", "agent"), { recursive: true });
  mkdirSync(join(project, ".git"), { recursive: true });
  const env: Record<string, string | undefined> = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), PATH: process.env.PATH };
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return path;
  };
  return {
    root,
    home,
    project,
    env,
    globalFile: (text: string, ext = "yaml") => write(join(home, ".config", "agent", `config.${ext}`), text),
    projectFile: (text: string, ext = "yaml") => write(join(project, ".agent", `config.${ext}`), text),
    file: (rel: string, text: string) => write(join(project, rel), text),
    load: (extra: { cwd?: string; configFile?: string; env?: Record<string, string>; commandTimeoutMs?: number; untrusted?: "keep" } = {}) =>
      loadConfig({ cwd: extra.cwd ?? project, env: { ...env, ...extra.env }, configFile: extra.configFile, commandTimeoutMs: extra.commandTimeoutMs, untrusted: extra.untrusted }),
  };
}

/** The problems of a load as "path: message" lines, for compact assertions. */
export function problemLines(result: ReturnType<typeof loadConfig>, severity?: "error" | "warning"): string[] {
  return result.problems.filter((p) => !severity || p.severity === severity).map((p) => `${p.path}: ${p.message}`);
}
