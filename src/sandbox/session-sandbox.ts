// A session's sandbox from its loaded config and the run's flags: the settings, the places to protect
// (the agent's own config and data, literal `secret_files`), and the platform's sandbox or the line
// saying why commands run without one.
import { isAbsolute, join, resolve } from "node:path";
import { dataRoot, globalConfigDir, type Env } from "../config/files.ts";
import type { LoadedConfig } from "../config/load.ts";
import { describePolicy } from "./policy.ts";
import { type Sandbox, type SandboxHost, startSandbox, SYSTEM_HOST } from "./sandbox.ts";
import { type Autonomy, resolveSandboxSettings, type SandboxOverrides, type SandboxSettings } from "./settings.ts";

export interface SessionSandbox {
  settings: SandboxSettings;
  sandbox: Sandbox | null;
  /** The mode commands really run in: `workspace_write, no network`, or `off`. */
  description: string;
  /** Sandboxed autonomy without a working sandbox asks for commands again (accept_edits). */
  autonomy: Autonomy;
  /** Lines for the session's notices. */
  notices: string[];
}

const GLOB = /[*?[\]{}]/;

/** `secret_files` entries that name one path (a pattern with a wildcard cannot be covered by a mount). */
function literalSecretPaths(patterns: readonly string[], projectRoot: string, home: string): string[] {
  const paths: string[] = [];
  for (const raw of patterns) {
    const p = raw.trim();
    if (p === "" || GLOB.test(p)) continue;
    if (p.startsWith("~/")) paths.push(join(home, p.slice(2)));
    else if (isAbsolute(p)) paths.push(p);
    // A name without a slash matches in every directory; the project's own copy is the one commands meet.
    else paths.push(resolve(projectRoot, p));
  }
  return paths;
}

export function sessionSandbox(loaded: LoadedConfig, env: Env, projectRoot: string, overrides: SandboxOverrides = {}, host: SandboxHost = SYSTEM_HOST): SessionSandbox {
  const home = env.HOME ?? "/";
  const settings = resolveSandboxSettings(loaded, overrides, home);
  const places = {
    projectRoot,
    home,
    agentDirs: [globalConfigDir(env), dataRoot(env)],
    secretPaths: literalSecretPaths(loaded.config.permissions?.secret_files ?? [], projectRoot, home),
    ...(env.XDG_RUNTIME_DIR?.startsWith("/") ? { runtimeDir: env.XDG_RUNTIME_DIR } : {}),
    ...(env.SSH_AUTH_SOCK?.startsWith("/") ? { sshAgentSocket: env.SSH_AUTH_SOCK } : {}),
  };
  const started = startSandbox(settings, places, host);
  const notices = [...settings.notes, ...(started.notice ? [started.notice] : [])];
  const autonomy = settings.autonomy === "sandboxed" && !started.sandbox ? "accept_edits" : settings.autonomy;
  return { settings, sandbox: started.sandbox, description: started.sandbox ? describePolicy(started.sandbox.policy) : "off", autonomy, notices };
}
