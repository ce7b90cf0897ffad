// `agent acp`: the ACP agent (src/acp) on stdio, with the session store, the daemon launcher and the
// provider logins of this machine as its host. Sessions are made the way `agent new` makes them.
import { dataRoot, findProject } from "../config/files.ts";
import { loadConfig } from "../config/load.ts";
import { chooseModel, ModelChoiceError } from "../agent/facets/model-choice.ts";
import { loadProfile } from "../providers/device-auth/profiles.ts";
import { ensureDaemon } from "../client/daemon-launch.ts";
import { createAcpAgent, type AcpHost, type LoginMethod } from "../acp/agent.ts";
import { serveStdio } from "../acp/stdio.ts";
import { VERSION } from "../version.ts";
import { newId } from "../util/ids.ts";
import { EXIT, type Io, type ParsedArgs } from "../util/cli-command.ts";

export async function acpRun(args: ParsedArgs, io: Io): Promise<number> {
  const demo = args.flags.demo === true;
  const root = dataRoot(io.env);
  const store = await import("../daemon/store/index.ts");
  const { writeSessionToolServers } = await import("../agent/session-tool-servers.ts");
  const host: AcpHost = {
    version: VERSION,
    createSession(cwd) {
      const project = findProject(cwd, io.env).root;
      const id = newId("ses", Date.now());
      const dir = store.sessionDirOf(root, id);
      store.initSessionDir(dir, id, { project }).close();
      return { id, dir, project };
    },
    findSession(id) {
      if (!/^ses_[A-Za-z0-9_-]+$/.test(id)) return null;
      try {
        const dir = store.sessionDirOf(root, id);
        const s = store.openSession(dir);
        const project = s.meta().project;
        s.close();
        return { dir, project };
      } catch {
        return null;
      }
    },
    sessionState(dir) {
      return store.listSessions(root).find((s) => s.dir === dir)?.meta.state ?? null;
    },
    listSessions(cwd) {
      const project = cwd === null ? null : findProject(cwd, io.env).root;
      return store
        .listSessions(root)
        .filter((s) => project === null || s.meta.project === project)
        .map((s) => ({ id: s.meta.id, project: s.meta.project, title: s.meta.title, updatedAt: s.meta.updatedAt }));
    },
    writeToolServers: writeSessionToolServers,
    logins: (cwd) => logins(cwd, io.env, root),
    setupProblem: (cwd) => (demo ? null : setupProblem(cwd, io.env)),
    launch: (dir, resume) => ensureDaemon({ sessionDir: dir, env: io.env, demo, resume }),
    log: (message) => io.err(`agent acp: ${message}\n`),
  };
  const { app, closeAll } = createAcpAgent(host);
  await serveStdio(app);
  // The editor went away; the sessions keep running in their daemons.
  await closeAll();
  return EXIT.ok;
}

/** The config's own problem (it does not load) or no model to talk to, said as exec says it. */
function setupProblem(cwd: string, env: Record<string, string | undefined>): string | null {
  const loaded = loadConfig({ cwd, env });
  if (!loaded.ok) return null; // the daemon reports a broken config itself, naming the file
  try {
    chooseModel(loaded, null);
    return null;
  } catch (error) {
    if (error instanceof ModelChoiceError && error.code === "no_model") return `${error.message.replace("add --demo", "start 'agent acp --demo'")}\nOr run 'agent setup' in a terminal to configure one.`;
    return null;
  }
}

/**
 * Device logins (`agent auth provider login`) of the configured providers. Only the default model's
 * provider must be logged in before a session starts; the others are offered as methods.
 */
function logins(cwd: string, env: Record<string, string | undefined>, root: string): LoginMethod[] {
  const loaded = loadConfig({ cwd, env });
  if (!loaded.ok) return [];
  const full = loaded.defaults.full?.model;
  const used = full ? loaded.models.models.get(full)?.provider : undefined;
  const out: LoginMethod[] = [];
  for (const [key, provider] of Object.entries(loaded.config.providers ?? {})) {
    const auth = provider?.auth;
    if (auth?.type !== "device_a" && auth?.type !== "device_b") continue;
    let loggedIn = false;
    try {
      const profile = loadProfile(root, auth.profile);
      loggedIn = profile !== null && profile.kind === auth.type && (profile.tokens.refresh_token !== null || profile.tokens.expires_at === null || profile.tokens.expires_at > Date.now());
    } catch {
      loggedIn = false;
    }
    out.push({
      id: `provider:${key}`,
      name: `Log in to ${key}`,
      description: `Provider '${key}' uses a device login (${auth.type}).`,
      args: ["auth", "provider", "login", "--provider", key],
      loggedIn,
      // A provider the default model does not use never blocks a session.
      required: key === used,
    });
  }
  return out;
}
