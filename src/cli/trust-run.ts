// `agent trust [DIR] [--revoke] [--list]`: see trust-commands.ts.
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { dataRoot, findProject } from "../config/files.ts";
import { loadConfig } from "../config/load.ts";
import { grantTrust, type ProjectTrust } from "../config/trust/assess.ts";
import { RuleAnswerStore, ruleAnswersFile } from "../config/trust/rule-answers.ts";
import { ProjectTrustStore, ProjectTrustStoreError, projectTrustFile, type ProjectTrustRecord } from "../config/trust/store.ts";
import { CliError, EXIT, UsageError, type Io, type ParsedArgs } from "../util/cli-command.ts";

function projectDir(args: ParsedArgs, io: Io): string {
  const given = args.positionals[0];
  const dir = resolve(io.cwd, given ?? ".");
  if (!existsSync(dir)) throw new CliError(`${dir}: no such directory`);
  if (!statSync(dir).isDirectory()) throw new CliError(`${dir}: not a directory (give the project directory)`);
  return dir;
}

/** The project's trust-relevant settings as they are now (loaded, never started). */
function current(dir: string, io: Io): ProjectTrust {
  return loadConfig({ cwd: dir, env: io.env, untrusted: "keep" }).trust;
}

function stateOf(record: ProjectTrustRecord, io: Io): "trusted" | "changed" | "missing" {
  if (!existsSync(record.project)) return "missing";
  return current(record.project, io).digest === record.digest ? "trusted" : "changed";
}

export async function trustRun(args: ParsedArgs, io: Io): Promise<number> {
  if (args.flags.list === true && args.flags.revoke === true) throw new UsageError("give --list or --revoke, not both");
  if (args.flags.list === true && args.positionals.length > 0) throw new UsageError("--list takes no DIR");
  const store = new ProjectTrustStore(projectTrustFile(dataRoot(io.env)));
  try {
    if (args.flags.list === true) return list(store, args, io);
    const root = findProject(projectDir(args, io), io.env).root;
    if (args.flags.revoke === true) return revoke(store, root, args, io);
    return grant(store, root, args, io);
  } catch (error) {
    if (error instanceof ProjectTrustStoreError) throw new CliError(error.message);
    throw error;
  }
}

function list(store: ProjectTrustStore, args: ParsedArgs, io: Io): number {
  const rows = store.list().map((r) => ({ ...r, state: stateOf(r, io) }));
  if (args.flags.json === true) {
    io.out(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) {
    io.out("No trusted projects.\n");
    return EXIT.ok;
  }
  for (const r of rows) {
    const note = r.state === "changed" ? "  (changed since: its sessions start without them until trusted again)" : r.state === "missing" ? "  (directory gone)" : "";
    io.out(`${r.state.padEnd(8)} ${r.project}  trusted ${r.trusted_at}${note}\n`);
    for (const item of r.items) io.out(`           - ${item}\n`);
  }
  return EXIT.ok;
}

function revoke(store: ProjectTrustStore, root: string, args: ParsedArgs, io: Io): number {
  // The user's own "allow always in this project" answers go too: the file's allow rules then all wait for trust.
  const forgotAnswers = new RuleAnswerStore(ruleAnswersFile(dataRoot(io.env))).forget(root);
  const done = store.revoke(root) || forgotAnswers;
  if (args.flags.json === true) io.out(`${JSON.stringify({ project: root, revoked: done })}\n`);
  else if (done) io.out(`Revoked: sessions of ${root} start without its tool servers, scripts, providers and models, addresses and allow rules.\n`);
  else io.err(`${root} was not trusted; nothing to revoke\n`);
  return done ? EXIT.ok : EXIT.failure;
}

function grant(store: ProjectTrustStore, root: string, args: ParsedArgs, io: Io): number {
  const trust = current(root, io);
  const json = (extra: Record<string, unknown>) => io.out(`${JSON.stringify({ project: root, file: trust.file, items: trust.items.map((i) => i.shown), ...extra })}\n`);
  if (trust.state === "none") {
    if (args.flags.json === true) json({ trusted: false, reason: "nothing to trust" });
    else io.out(`Nothing to trust in ${root}: its config starts no program, chooses no model and sends nothing elsewhere.\n`);
    return EXIT.ok;
  }
  if (trust.state !== "trusted") grantTrust(store, trust);
  if (args.flags.json === true) {
    json({ trusted: true, digest: trust.digest });
    return EXIT.ok;
  }
  io.out(`${trust.state === "trusted" ? "Already trusted" : "Trusted"}: ${trust.file}\n`);
  for (const item of trust.items) io.out(`  - ${item.shown}\n`);
  io.out("Sessions of this project now use them; a change to any of them asks again.\n");
  return EXIT.ok;
}
