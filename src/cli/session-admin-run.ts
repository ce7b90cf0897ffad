// `agent sessions list|stop|rm`.
import { rmSync } from "node:fs";
import { dataRoot, findProject } from "../config/files.ts";
import { findLiveDaemon } from "../client/daemon-launch.ts";
import { DaemonClient } from "../client/daemon-client.ts";
import { listSessions, openSession, sessionDirOf } from "../daemon/store/index.ts";
import { CliError, EXIT, type Io, type ParsedArgs } from "./command.ts";

export async function listRun(args: ParsedArgs, io: Io): Promise<number> {
  const project = findProject(io.cwd, io.env).root;
  const all = listSessions(dataRoot(io.env)).filter((s) => args.flags.all === true || s.meta.project === project);
  const rows = await Promise.all(
    all.map(async (s) => ({ ...s.meta, daemon: (await findLiveDaemon(s.dir)) !== null })),
  );
  if (args.flags.json === true) {
    for (const r of rows) io.out(`${JSON.stringify({ id: r.id, state: r.state, daemon_running: r.daemon, project: r.project, title: r.title, created_at: new Date(r.createdAt).toISOString(), updated_at: new Date(r.updatedAt).toISOString() })}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) {
    io.err(args.flags.all === true ? "no sessions\n" : `no sessions for ${project} (--all lists every project)\n`);
    return EXIT.ok;
  }
  for (const r of rows) {
    const state = r.state === "running" && !r.daemon ? "running (daemon not started)" : r.state;
    io.out(`${r.id}  ${state.padEnd(10)}  ${new Date(r.updatedAt).toISOString().slice(0, 16).replace("T", " ")}  ${r.title ?? ""}${args.flags.all === true ? `  ${r.project}` : ""}\n`);
  }
  return EXIT.ok;
}

function dirOf(io: Io, id: string): string {
  try {
    const dir = sessionDirOf(dataRoot(io.env), id);
    openSession(dir).close();
    return dir;
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
}

async function stopSession(dir: string): Promise<void> {
  const live = await findLiveDaemon(dir);
  if (live) {
    await new DaemonClient({ url: live.url, token: live.token }).stop(true);
    return;
  }
  const store = openSession(dir);
  try {
    if (store.meta().state !== "stopped") {
      store.appendEvents([{ type: "session_state", state: "stopped", finalized: true }]);
      store.setState("stopped", true);
    }
  } finally {
    store.close();
  }
}

export async function stopRun(args: ParsedArgs, io: Io): Promise<number> {
  const id = args.positionals[0]!;
  await stopSession(dirOf(io, id));
  io.err(`stopped ${id}\n`);
  return EXIT.ok;
}

export async function rmRun(args: ParsedArgs, io: Io): Promise<number> {
  const id = args.positionals[0]!;
  const dir = dirOf(io, id);
  const live = await findLiveDaemon(dir);
  if (live && args.flags.force !== true) throw new CliError(`session ${id} is running (daemon pid ${live.pid}); stop it first or pass --force`);
  if (live) await stopSession(dir);
  rmSync(dir, { recursive: true, force: true });
  io.err(`removed ${id}\n`);
  return EXIT.ok;
}
