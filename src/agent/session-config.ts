// The config a session starts from: loaded (or the host's), refused with every error when invalid, with
// the offline demo provider added for `--demo`, and reloaded once a local model server answers when
// nothing is configured. The "not trusted" notice comes with it, to be said first.
import { dataRoot, type Env } from "../config/files.ts";
import { loadConfig, type LoadedConfig } from "../config/load.ts";
import { resolveModels } from "../config/models.ts";
import { resolveDefaults } from "../config/defaults.ts";
import { formatProblem, ProblemList } from "../config/problems.ts";
import { untrustedNotice, type UntrustedPolicy } from "../config/trust/assess.ts";
import { useRunningLocalServer, wantsLocalServer } from "../providers/local-detect.ts";
import { withDemoProvider, writeDemoScript } from "./demo.ts";
import { SessionSetupError } from "./session-setup-error.ts";

export interface SessionConfigOptions {
  cwd: string;
  env: Env;
  configFile?: string;
  untrusted?: UntrustedPolicy;
  trustHint?: string;
  /** An already loaded config (the daemon reloads it itself): never reloaded here. */
  loaded?: LoadedConfig;
  demo?: boolean;
}

export interface SessionConfig {
  loaded: LoadedConfig;
  /** Why the project's own settings were left out; null when they are trusted (or there are none). */
  trustNotice: string | null;
}

function withDemo(loaded: LoadedConfig, env: Env): LoadedConfig {
  const config = withDemoProvider(loaded.config, writeDemoScript(dataRoot(env)));
  const problems = new ProblemList();
  const models = resolveModels(config, problems);
  return { ...loaded, config, models, defaults: resolveDefaults(config, models, problems) };
}

export async function loadSessionConfig(opts: SessionConfigOptions): Promise<SessionConfig> {
  let loaded = opts.loaded ?? loadConfig({ cwd: opts.cwd, env: opts.env, configFile: opts.configFile, untrusted: opts.untrusted });
  // Said first, so a person reads why a tool server or script is missing before anything else.
  const trustNotice = loaded.trust.active ? null : untrustedNotice(loaded.trust, opts.cwd, opts.trustHint);
  if (!loaded.ok) {
    const errors = loaded.problems.filter((p) => p.severity === "error").map(formatProblem);
    throw new SessionSetupError("config_invalid", `the config has errors (run \`agent config validate\` for details):\n${[...errors, ...(trustNotice ? [trustNotice] : [])].join("\n")}`);
  }
  if (opts.demo) loaded = withDemo(loaded, opts.env);
  // Nothing configured and no key: a local server answering on its default port (a bounded probe).
  if (!opts.demo && !opts.loaded && wantsLocalServer(loaded) && (await useRunningLocalServer(opts.env)))
    loaded = loadConfig({ cwd: opts.cwd, env: opts.env, configFile: opts.configFile, untrusted: opts.untrusted });
  return { loaded, trustNotice };
}
