// `agent new` and `agent continue`: create or pick the session, make sure its daemon runs, then either
// print the session id (--detach) or attach a streaming printer through the daemon protocol. The session
// store's modules (drizzle, sqlite) load only when used: a new session on a terminal draws its first
// frame before its store exists (docs/decisions-tui.md 27).
import { createInterface } from "node:readline";
import { dataRoot, findProject } from "../config/files.ts";
import { DaemonClient } from "../client/daemon-client.ts";
import { ensureDaemon, type DaemonHandle } from "../client/daemon-launch.ts";
import type { SyncRecord } from "../protocol/sync-record.ts";
import { newId } from "../util/ids.ts";
import { CliError, EXIT, type Io, type ParsedArgs } from "../util/cli-command.ts";
import { runPermissionArgs, runPermissions } from "./run-permission-flags.ts";
import { SessionPrinter } from "./session-printer.ts";

/** Ctrl+C in the trust dialog: nothing was started. */
const EXIT_CANCELLED = 130;

export async function newRun(args: ParsedArgs, io: Io): Promise<number> {
  const prompt = args.positionals[0];
  const project = findProject(io.cwd, io.env).root;
  const demo = args.flags.demo === true;
  const permissionArgs = runPermissionArgs(runPermissions(args));
  const id = newId("ses", Date.now());
  if (wantsTui(args)) {
    const start = async () => {
      await refuseBrokenConfig(io);
      const dir = await newSession(dataRoot(io.env), id, project, prompt);
      return { handle: await launch(dir, io, demo, false, permissionArgs), sessionDir: dir };
    };
    if (!(await (await import("./trust-prompt.ts")).confirmProjectTrust(project, io))) return EXIT_CANCELLED;
    return (await import("./session-tui.ts")).runLocalTui({ launch: start, sessionId: id, demo, prompt }, io);
  }
  await refuseBrokenConfig(io);
  const dir = await newSession(dataRoot(io.env), id, project, prompt);
  const handle = await launch(dir, io, demo, false, permissionArgs);
  return follow(handle, id, io, { prompt, detach: args.flags.detach === true });
}

/**
 * A config with errors is reported before a session exists: the daemon would refuse to start on it,
 * leaving a session that never ran. On a terminal this runs after the first frame (decision-tui 27).
 */
async function refuseBrokenConfig(io: Io): Promise<void> {
  const { loadConfig } = await import("../config/load.ts");
  const { formatProblem } = await import("../config/problems.ts");
  const loaded = loadConfig({ cwd: io.cwd, env: io.env });
  if (loaded.ok) return;
  const errors = loaded.problems.filter((p) => p.severity === "error").map(formatProblem);
  throw new CliError(`the config has errors, so no session was started (\`agent config validate\` checks it again):\n${errors.join("\n")}`);
}

/** Creates the session dir and lets go of its store (nothing here keeps a reference to it). */
async function newSession(root: string, id: string, project: string, prompt: string | undefined): Promise<string> {
  const { initSessionDir, sessionDirOf, titleFrom } = await import("../daemon/store/index.ts");
  const dir = sessionDirOf(root, id);
  initSessionDir(dir, id, { project, title: prompt === undefined ? undefined : (titleFrom(prompt) ?? undefined) }).close();
  return dir;
}

export async function continueRun(args: ParsedArgs, io: Io): Promise<number> {
  const { listSessions, openSession, sessionDirOf } = await import("../daemon/store/index.ts");
  const root = dataRoot(io.env);
  let id = args.positionals[0];
  if (!id) {
    const project = findProject(io.cwd, io.env).root;
    const mine = listSessions(root).filter((s) => s.meta.project === project);
    if (mine.length === 0) throw new CliError(`no session for ${project} yet; start one with 'agent new'`);
    // On a terminal a choice of several is offered (decisions-tui 51); without one, the newest as before.
    if (mine.length > 1 && wantsTui(args)) {
      const picked = await pickSession(mine, project);
      if (!picked) return EXIT_CANCELLED;
      id = picked;
    } else id = mine[0]!.meta.id;
  }
  let dir: string;
  let project: string;
  try {
    dir = sessionDirOf(root, id);
    const store = openSession(dir);
    project = store.meta().project;
    store.close();
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
  if (wantsTui(args) && !(await (await import("./trust-prompt.ts")).confirmProjectTrust(project, io))) return EXIT_CANCELLED;
  // Continuing a stopped session (by hand, or by its daemon's idle exit) makes it running again.
  if (wantsTui(args)) return (await import("./session-tui.ts")).runLocalTui({ launch: async () => ({ handle: await launch(dir, io, args.flags.demo === true, true), sessionDir: dir }), sessionId: id, demo: args.flags.demo === true }, io);
  const handle = await launch(dir, io, args.flags.demo === true, true);
  return follow(handle, id, io, { detach: args.flags.detach === true });
}

/** The project's sessions, newest activity first, with the state `agent sessions list` shows. */
async function pickSession(sessions: { dir: string; meta: { id: string; title: string | null; updatedAt: number; state: string } }[], project: string): Promise<string | null> {
  const { findLiveDaemon } = await import("../client/daemon-launch.ts");
  const { titleFrom } = await import("../daemon/store/index.ts");
  const rows = await Promise.all(
    sessions.map(async ({ dir, meta }) => ({
      id: meta.id,
      title: titleFrom(meta.title ?? ""),
      updatedAt: meta.updatedAt,
      state: meta.state === "running" && !(await findLiveDaemon(dir)) ? "exited" : meta.state,
    })),
  );
  rows.sort((a, b) => b.updatedAt - a.updatedAt);
  const { pickSession: ask } = await import("../../tui/session-picker.tsx");
  return ask(rows, project);
}

/** The terminal UI needs a terminal on both ends; pipes and --detach keep the plain printer. */
function wantsTui(args: ParsedArgs): boolean {
  return args.flags.detach !== true && process.stdin.isTTY === true && process.stdout.isTTY === true;
}

async function launch(dir: string, io: Io, demo: boolean, resume = false, permissionArgs: string[] = []): Promise<DaemonHandle> {
  try {
    return await ensureDaemon({ sessionDir: dir, env: io.env, demo, resume, permissionArgs });
  } catch (error) {
    // A session whose daemon cannot start is not left looking as if it ran (`sessions list`): it is stopped.
    await markStopped(dir).catch(() => {});
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
}

async function markStopped(dir: string): Promise<void> {
  (await import("../daemon/store/index.ts")).markSessionStopped(dir);
}

async function follow(handle: DaemonHandle, id: string, io: Io, options: { prompt?: string; detach: boolean }): Promise<number> {
  const client = new DaemonClient({ url: handle.url, token: handle.token });
  if (options.detach) {
    if (options.prompt) await client.prompt(options.prompt);
    io.out(`${id}\n`);
    return EXIT.ok;
  }
  io.err(`session ${id} (daemon pid ${handle.pid}${handle.started ? "" : ", already running"})\n`);
  const printer = new SessionPrinter(io);
  const stop = new AbortController();
  let lastSeq = 0;
  let caughtUp!: () => void;
  const caughtUpP = new Promise<void>((r) => (caughtUp = r));
  let target = Infinity;
  const settled = new Map<string, { status: string; error?: { code: string; message?: string } }>();
  let wake: () => void = () => {};
  const following = client.follow(
    {
      onSnapshot: (snap, rebuild) => {
        if (rebuild) printer.reset();
        target = Number(snap.seq);
        if (lastSeq >= target) caughtUp();
      },
      onRecords: (records: SyncRecord[]) => {
        printer.print(records);
        for (const r of records as unknown as Record<string, any>[]) {
          lastSeq = Number(r.seq);
          if (r.type === "operation_result" && (r.result.status === "completed" || r.result.status === "failed")) settled.set(r.result.operation, r.result);
        }
        if (lastSeq >= target) caughtUp();
        wake();
      },
    },
    stop.signal,
  );
  await caughtUpP;
  let code: number = EXIT.ok;
  const run = async (text: string) => {
    const accepted = await client.prompt(text);
    const op = accepted.operation?.operation;
    while (op && !settled.has(op)) await new Promise<void>((r) => (wake = r));
    const result = op ? settled.get(op) : undefined;
    return result?.status === "failed" ? EXIT.failure : EXIT.ok;
  };
  if (options.prompt) code = await run(options.prompt);
  if (process.stdin.isTTY) code = await interactive(client, printer, run);
  stop.abort();
  await following;
  return code;
}

/** Reads prompts (and answers to open questions) line by line until end of input; the session keeps running. */
async function interactive(client: DaemonClient, printer: SessionPrinter, run: (text: string) => Promise<number>): Promise<number> {
  const lines = createInterface({ input: process.stdin });
  let code: number = EXIT.ok;
  for await (const line of lines) {
    const text = line.trim();
    if (!text) continue;
    const question = printer.questions[0];
    if (question) {
      const yes = /^y(es)?$/i.test(text);
      const decision = question.text.startsWith("approve") ? (yes ? "approve" : "reject") : yes ? "allow_once" : "deny";
      await client.answer(question.id, { decision });
      continue;
    }
    code = await run(text);
  }
  return code;
}
