// `agent new` / `agent continue` on a terminal: opens the conversation view (tui/) on the session's local
// daemon. Imported lazily, only on that path, so other commands never load React or Ink. The daemon (and a
// new session's store) is started after the first frame (two processes starting at once slow both down);
// a daemon that cannot start ends the view with its error. When the daemon dies later (a crash, kill -9)
// the view restarts it, unless the session was stopped on purpose.
import { join } from "node:path";
import { DaemonClient } from "../client/daemon-client.ts";
import { dataRoot } from "../config/files.ts";
import { ensureDaemon, findLiveDaemon, retire, type DaemonHandle } from "../client/daemon-launch.ts";
import type { Io } from "../util/cli-command.ts";
import { withIdleTrim } from "./tui-memory.ts";

export interface LocalTuiOptions {
  /** Starts (or finds) the session's daemon, after the first frame; a new session's store is created here too. */
  launch: () => Promise<{ handle: DaemonHandle; sessionDir: string }>;
  sessionId: string;
  demo: boolean;
  prompt?: string;
}

export async function runLocalTui(options: LocalTuiOptions, io: Io): Promise<number> {
  const { runTui } = await import("../../tui/run.tsx");
  const clientFor = (h: DaemonHandle) => new DaemonClient({ url: h.url, token: h.token });
  let sessionDir = "";
  return withIdleTrim(() => runTui({
    client: async () => {
      const launched = await options.launch();
      sessionDir = launched.sessionDir;
      return clientFor(launched.handle);
    },
    sessionId: options.sessionId,
    where: "local daemon",
    historyFile: join(dataRoot(io.env), "prompt-history.jsonl"),
    initialPrompt: options.prompt,
    reattach: `agent continue ${options.sessionId}`,
    ctrlCInterrupts: true,
    // `@` mentions: the session project's files, listed as glob and grep list them (.gitignore honoured).
    files: async () => {
      const { projectFiles } = await import("../../tui/project-files.ts");
      return projectFiles(sessionDir, io.cwd);
    },
    config: { cwd: io.cwd, env: io.env },
    // `/reload`: the daemon is stopped (finalizing its history as an idle exit does) and started again,
    // resumed, so providers, models, tool servers and facets come from the config files as they are now.
    restartDaemon: async () => {
      // A config the daemon would refuse leaves the running daemon alone.
      const { loadConfig } = await import("../config/load.ts");
      const { formatProblem } = await import("../config/problems.ts");
      const loaded = loadConfig({ cwd: io.cwd, env: io.env });
      if (!loaded.ok) throw new Error(`the config has errors, so the session keeps running as it was:\n${loaded.problems.filter((p) => p.severity === "error").map(formatProblem).join("\n")}`);
      const live = await findLiveDaemon(sessionDir);
      if (live) {
        await clientFor(live).stop(true);
        await retire(live.pid, null);
      }
      return clientFor(await ensureDaemon({ sessionDir, env: io.env, demo: options.demo, resume: true }));
    },
    // Only asked once the first client was made (a launched session has its dir). A session its daemon
    // stopped for being idle (the view lost its stream for that long) is resumed too.
    recover: async () => {
      const { openSession } = await import("../daemon/store/index.ts");
      const store = openSession(sessionDir);
      const state = store.meta().state;
      const idle = store.stoppedIdle();
      store.close();
      if (state !== "running" && !idle) return null;
      return clientFor(await ensureDaemon({ sessionDir, env: io.env, demo: options.demo, resume: idle }));
    },
  }));
}
