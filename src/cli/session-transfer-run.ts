// `agent sessions fork|export|import`: on the session store directly (the session's daemon, when one
// runs, offers fork and export as routes too: src/daemon/daemon-transfer-routes.ts).
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { dataRoot, findProject } from "../config/files.ts";
import { openSession, sessionDirOf, sessionsRoot, type SessionStore } from "../daemon/store/index.ts";
import { checkExport, exportMarkdown, exportSession, forkSession, importSession, TransferError } from "../daemon/store/transfer.ts";
import { CliError, EXIT, UsageError, type Io, type ParsedArgs } from "../util/cli-command.ts";

function open(io: Io, id: string): SessionStore {
  let dir: string;
  try {
    dir = sessionDirOf(dataRoot(io.env), id);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  try {
    return openSession(dir);
  } catch (error) {
    throw new CliError(`no session ${id} (${(error as Error).message})`);
  }
}

function transfer<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof TransferError) throw new CliError(error.message);
    throw error;
  }
}

export async function forkRun(args: ParsedArgs, io: Io): Promise<number> {
  const source = open(io, args.positionals[0]!);
  try {
    const fork = transfer(() => forkSession(source, sessionsRoot(dataRoot(io.env)), args.flags.at as string | undefined));
    io.out(`${fork.id}\n`);
    io.err(`forked ${source.id}${args.flags.at ? ` up to prompt ${args.flags.at}` : ""} into ${fork.id}; continue it with: agent continue ${fork.id} (or agent exec --session ${fork.id} PROMPT)\n`);
    fork.close();
  } finally {
    source.close();
  }
  return EXIT.ok;
}

export async function exportRun(args: ParsedArgs, io: Io): Promise<number> {
  const format = (args.flags.format as string | undefined) ?? "json";
  const store = open(io, args.positionals[0]!);
  let doc;
  try {
    doc = exportSession(store);
  } finally {
    store.close();
  }
  const text = format === "markdown" ? exportMarkdown(doc) : `${JSON.stringify(doc, null, 2)}\n`;
  const output = args.flags.output as string | undefined;
  if (output === undefined) io.out(text);
  else {
    writeFileSync(resolve(io.cwd, output), text, { mode: 0o600 });
    io.err(`wrote ${output}\n`);
  }
  return EXIT.ok;
}

export async function importRun(args: ParsedArgs, io: Io): Promise<number> {
  const file = args.positionals[0]!;
  let text: string;
  try {
    text = file === "-" ? await io.stdin() : readFileSync(resolve(io.cwd, file), "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file}: not JSON (${(error as Error).message}); import reads what 'agent sessions export ID --format json' writes`);
  }
  const doc = transfer(() => checkExport(parsed));
  // An imported session works in this project: the exporting machine's path means nothing here.
  const project = findProject(io.cwd, io.env).root;
  const store = importSession(doc, sessionsRoot(dataRoot(io.env)), project);
  io.out(`${store.id}\n`);
  io.err(`imported ${file} (${doc.events.length} events${doc.session.id ? ` of ${doc.session.id}` : ""}) as ${store.id} in ${project}; continue it with: agent continue ${store.id}\n`);
  store.close();
  return EXIT.ok;
}
