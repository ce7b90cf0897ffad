// `agent exec --session ID` / `--continue`: the run adds its prompt to a stored session instead of a new
// one. The session is loaded in this process as a daemon resumes it (the journal's engine events, an
// interrupted turn closed first), so the model sees the whole history; a session a daemon serves right
// now is refused (two engines must never write one journal).
import { findLiveDaemon } from "../client/daemon-launch.ts";
import type { EngineEvent } from "../agent/events.ts";
import { dataRoot, findProject } from "../config/files.ts";
import { closingRecords } from "../daemon/recovery.ts";
import { listSessions, openSession, sessionDirOf, type SessionStore } from "../daemon/store/index.ts";
import { CliError, UsageError, type Io, type ParsedArgs } from "../util/cli-command.ts";

export interface ResumedSession {
  store: SessionStore;
  /** The project the session works in (its stored one, wherever exec was started). */
  project: string;
  events: EngineEvent[];
}

/** The session to continue, or null for a new one. */
export async function sessionToContinue(args: ParsedArgs, io: Io): Promise<ResumedSession | null> {
  const named = args.flags.session as string | undefined;
  const newest = args.flags.continue === true;
  if (named !== undefined && newest) throw new UsageError("--session and --continue both choose the session; give one of them");
  if (named === undefined && !newest) return null;
  const root = dataRoot(io.env);
  let dir: string;
  if (named !== undefined) {
    try {
      dir = sessionDirOf(root, named);
    } catch (error) {
      throw new UsageError(`--session: ${(error as Error).message}`);
    }
  } else {
    const project = findProject(io.cwd, io.env).root;
    const mine = listSessions(root).filter((s) => s.meta.project === project);
    if (mine.length === 0) throw new CliError(`--continue: no session for ${project} yet; run 'agent exec' without it to start one`);
    dir = mine.sort((a, b) => b.meta.updatedAt - a.meta.updatedAt)[0]!.dir;
  }
  let store: SessionStore;
  try {
    store = openSession(dir);
  } catch (error) {
    throw new CliError(named !== undefined ? `no session ${named} (${(error as Error).message})` : (error as Error).message);
  }
  const live = await findLiveDaemon(dir);
  if (live) {
    const id = store.meta().id;
    store.close();
    throw new CliError(`session ${id} is served by a running daemon (pid ${live.pid}); stop it first ('agent sessions stop ${id}') or talk to it with 'agent continue ${id}'`);
  }
  // What a crashed or killed run left open (a turn, a tool call) is closed first, as a daemon does on restart.
  const closing = closingRecords(store.events(), Date.now());
  if (closing.length > 0) store.appendEvents(closing);
  return { store, project: store.meta().project, events: store.events() };
}
