// A session's extensions (src/agent/extensions/): found in the user's and the project's `extensions`
// directories, configured by the config's `plugins` entries. The approved ones load before the first
// turn; the others wait for the person (`askApprovals`).
import { join } from "node:path";
import { dataRoot, type Env } from "../config/files.ts";
import type { AppConfig } from "../config/schema.ts";
import type { Clock } from "../util/clock.ts";
import { ApprovalStore, approvalsFile } from "./extensions/approvals.ts";
import type { ExtensionRoot } from "./extensions/discover.ts";
import { ExtensionManager } from "./extensions/manager.ts";

export interface SessionExtensionsOptions {
  config: Pick<AppConfig, "plugins">;
  globalConfigDir: string;
  agentDir?: string;
  projectRoot: string;
  env: Env;
  clock: Clock;
  interactive: boolean;
  sessionDir?: string | null;
  scrub: (text: string) => string;
}

/** The session's extension manager, started: what went wrong goes into `warnings`. */
export async function startSessionExtensions(opts: SessionExtensionsOptions, warnings: string[]): Promise<ExtensionManager> {
  const roots: ExtensionRoot[] = [{ dir: join(opts.globalConfigDir, "extensions"), origin: "global" }];
  if (opts.agentDir) roots.push({ dir: join(opts.agentDir, "extensions"), origin: "project" });
  const extensions = new ExtensionManager({
    roots,
    plugins: (opts.config.plugins ?? {}) as Record<string, unknown>,
    store: new ApprovalStore(approvalsFile(dataRoot(opts.env)), () => opts.clock.now()),
    projectRoot: opts.projectRoot,
    interactive: opts.interactive,
    sessionDir: opts.sessionDir,
    now: () => opts.clock.now(),
    scrub: opts.scrub,
  });
  await extensions.start(warnings);
  return extensions;
}
