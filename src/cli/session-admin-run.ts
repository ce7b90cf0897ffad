// `agent sessions list|stop|rm|prune`.
import { rmSync } from "node:fs";
import { dataRoot, findProject } from "../config/files.ts";
import { findLiveDaemon, retire } from "../client/daemon-launch.ts";
import { DaemonClient } from "../client/daemon-client.ts";
import { listSessions, markSessionStopped, openSession, sessionDirOf, titleFrom, type SessionMeta } from "../daemon/store/index.ts";
import { CliError, EXIT, UsageError, type Io, type ParsedArgs } from "../util/cli-command.ts";

/**
 * What a person is told about a session: its stored state, except that a session the store calls running
 * while no daemon serves it is `exited` (its daemon crashed or was killed; `agent continue` resumes it).
 */
function shownState(meta: SessionMeta, daemon: boolean): string {
  return meta.state === "running" && !daemon ? "exited" : meta.state;
}

export async function listRun(args: ParsedArgs, io: Io): Promise<number> {
  const project = findProject(io.cwd, io.env).root;
  const all = listSessions(dataRoot(io.env)).filter((s) => args.flags.all === true || s.meta.project === project);
  const rows = await Promise.all(
    all.map(async (s) => ({ ...s.meta, daemon: (await findLiveDaemon(s.dir)) !== null })),
  );
  if (args.flags.json === true) {
    for (const r of rows) io.out(`${JSON.stringify({ id: r.id, state: r.state, shown_state: shownState(r, r.daemon), daemon_running: r.daemon, project: r.project, title: r.title, created_at: new Date(r.createdAt).toISOString(), updated_at: new Date(r.updatedAt).toISOString() })}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) {
    io.err(args.flags.all === true ? "no sessions\n" : `no sessions for ${project} (--all lists every project)\n`);
    return EXIT.ok;
  }
  for (const r of rows) {
    // A title stored before titles were made one line (or by an older agent) is flattened here too.
    io.out(`${r.id}  ${shownState(r, r.daemon).padEnd(10)}  ${new Date(r.updatedAt).toISOString().slice(0, 16).replace("T", " ")}  ${titleFrom(r.title ?? "") ?? ""}${args.flags.all === true ? `  ${r.project}` : ""}\n`);
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
    // Done when the daemon is gone, so that the next command (rm, prune, continue) finds no daemon.
    await retire(live.pid, null);
    return;
  }
  markSessionStopped(dir);
}

export async function stopRun(args: ParsedArgs, io: Io): Promise<number> {
  const id = args.positionals[0];
  if (args.flags.all === true) {
    if (id) throw new UsageError("agent sessions stop takes a SESSION or --all, not both");
    return stopAll(io);
  }
  if (!id) throw new UsageError("agent sessions stop needs a SESSION (or --all)");
  await stopSession(dirOf(io, id));
  io.err(`stopped ${id}\n`);
  return EXIT.ok;
}

/** Every session of every project that is not stopped yet, or whose daemon is still up. */
async function stopAll(io: Io): Promise<number> {
  let stopped = 0;
  let failed = 0;
  // All at once: each stop waits for its daemon to exit.
  await Promise.all(
    listSessions(dataRoot(io.env)).map(async (s) => {
      if (s.meta.state === "stopped" && (await findLiveDaemon(s.dir)) === null) return;
      try {
        await stopSession(s.dir);
        io.out(`${s.meta.id}\n`);
        stopped += 1;
      } catch (error) {
        io.err(`error: cannot stop ${s.meta.id}: ${error instanceof Error ? error.message : String(error)}\n`);
        failed += 1;
      }
    }),
  );
  io.err(stopped === 0 && failed === 0 ? "no running sessions\n" : `stopped ${stopped} session(s)\n`);
  return failed > 0 ? EXIT.failure : EXIT.ok;
}

const DURATION_UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30d`, `12h`, `90m`, `45s`, `2w`. */
export function parseDuration(text: string): number {
  const m = /^([0-9]{1,9})([smhdw])$/.exec(text.trim());
  if (!m) throw new UsageError(`--older-than takes a number and a unit: s, m, h, d or w (e.g. 30d, 12h); got '${text}'`);
  return Number(m[1]) * DURATION_UNITS[m[2]!]!;
}

/**
 * `agent sessions prune`: removes the sessions (of every project) that no daemon serves and that nothing
 * changed for longer than --older-than (default 30d); a running session is never removed.
 */
export async function pruneRun(args: ParsedArgs, io: Io): Promise<number> {
  const olderThan = parseDuration((args.flags["older-than"] as string | undefined) ?? "30d");
  const dryRun = args.flags["dry-run"] === true;
  const before = Date.now() - olderThan;
  let removed = 0;
  for (const s of listSessions(dataRoot(io.env))) {
    if (s.meta.updatedAt > before || (await findLiveDaemon(s.dir)) !== null) continue;
    if (!dryRun) rmSync(s.dir, { recursive: true, force: true });
    io.out(`${s.meta.id}  ${new Date(s.meta.updatedAt).toISOString().slice(0, 10)}  ${titleFrom(s.meta.title ?? "") ?? ""}\n`);
    removed += 1;
  }
  io.err(`${dryRun ? "would remove" : "removed"} ${removed} session(s) unchanged for ${(args.flags["older-than"] as string | undefined) ?? "30d"}\n`);
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
