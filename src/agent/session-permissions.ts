// A session's sandbox and permission gate: the sandbox from the config and the run's flags (mode off,
// with a notice, where the platform has none), and the gate (rules, autonomy, secret files and words)
// unless the host brings its own. The secrets decide what child processes get in their environment and
// what is redacted from text the session shows or logs.
import type { Env } from "../config/files.ts";
import type { LoadedConfig } from "../config/load.ts";
import type { FetchLike } from "../providers/http.ts";
import type { DeviceProfileTokens } from "../providers/device-auth/profiles.ts";
import { loadPermissionGate, PermissionRuleError, type Secrets } from "../permissions/index.ts";
import { sessionSandbox, type SessionSandbox } from "../sandbox/session-sandbox.ts";
import type { Autonomy, SandboxOverrides } from "../sandbox/settings.ts";
import { defaultShellEnv } from "../tools/shell-env.ts";
import type { Clock } from "../util/clock.ts";
import { redactText } from "../util/redact.ts";
import type { CommandServices } from "./commands/types.ts";
import type { PermissionGate } from "./permission.ts";
import { SessionSetupError } from "./session-setup-error.ts";

export interface SessionPermissionsOptions {
  loaded: LoadedConfig;
  env: Env;
  projectRoot: string;
  globalConfigDir: string;
  clock: Clock;
  /** Where whole tool outputs go (the gate lets tools read them back). */
  toolOutputDir: string;
  /** Provider auth for the classifier's calls. */
  devices: DeviceProfileTokens;
  fetch?: FetchLike;
  /** The host's own gate (tests, subagents): no rules, secrets or autonomy are loaded then. */
  gate?: PermissionGate;
  /** This run's `--sandbox` / `--autonomy` / `--full-auto` (src/sandbox/settings.ts). */
  sandbox?: SandboxOverrides;
  /** This run's `--allow` / `--deny` rules. */
  runRules?: { allow?: readonly string[]; deny?: readonly string[] };
}

export interface SessionPermissions {
  gate: PermissionGate;
  /** The sandbox shell commands run in (its `sandbox` is null when they run without one). */
  contained: SessionSandbox;
  /** The gate's secret files and words; null with a host's own gate. */
  secrets: Secrets | null;
  /** `/permissions` and `/autonomy`: absent with a host's own gate. */
  permissions: CommandServices["permissions"];
  /** What child processes (the shell, hooks, the notify program) get: no secret words. */
  childEnv: () => Record<string, string>;
  /** Redacts secret words (the gate's, else the config's) from text. */
  scrub: (text: string) => string;
  /** Where shell commands run and the autonomy in effect now (it changes with /autonomy). */
  summary: { description: string; readonly autonomy: Autonomy };
}

/** Builds the sandbox and the gate; their notices go to `warnings`. A bad rule is a SessionSetupError. */
export async function sessionPermissions(opts: SessionPermissionsOptions, warnings: string[]): Promise<SessionPermissions> {
  const { loaded } = opts;
  const contained = sessionSandbox(loaded, opts.env, opts.projectRoot, opts.sandbox);
  warnings.push(...contained.notices);
  let gate: PermissionGate;
  let secrets: Secrets | null = null;
  let permissions: CommandServices["permissions"];
  if (opts.gate) gate = opts.gate;
  else {
    try {
      const loadedGate = await loadPermissionGate({
        loaded,
        projectRoot: opts.projectRoot,
        globalConfigDir: opts.globalConfigDir,
        clock: opts.clock,
        home: opts.env.HOME,
        toolOutputDir: opts.toolOutputDir,
        sandbox: { active: contained.sandbox !== null, autonomy: contained.autonomy, description: contained.description },
        ...(opts.runRules ? { runRules: opts.runRules } : {}),
        providerDeps: { trustStore: loaded.trustStore ?? null, devices: opts.devices, ...(opts.fetch ? { fetch: opts.fetch } : {}) },
      });
      warnings.push(...loadedGate.warnings);
      secrets = loadedGate.secrets;
      gate = loadedGate;
      permissions = { get autonomy() { return loadedGate.autonomy; }, setAutonomy: (level) => loadedGate.setAutonomy(level), sandbox: contained.description };
    } catch (error) {
      if (error instanceof PermissionRuleError) throw new SessionSetupError("config_invalid", error.message);
      throw error;
    }
  }
  const baseEnv = () => defaultShellEnv(opts.env);
  const childEnv = () => (secrets ? secrets.filterEnv(baseEnv()) : baseEnv());
  const scrub = secrets ? (text: string) => secrets!.redact(text) : (text: string) => redactText(text, loaded.secrets.filter((x) => x.length > 0));
  const summary = { description: contained.description, get autonomy() { return permissions?.autonomy ?? contained.autonomy; } };
  return { gate, contained, secrets, permissions, childEnv, scrub, summary };
}
