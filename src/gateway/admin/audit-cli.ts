// `agent gateway audit list`: the audit log, newest first, filtered by principal, start time and count.
import { EXIT, UsageError, type Io, type ParsedArgs } from "../../util/cli-command.ts";
import { withAdmin } from "./admin-context.ts";
import { printJson, printTable, wantsJson } from "./format.ts";

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export async function list(args: ParsedArgs, io: Io): Promise<number> {
  const since = args.flags.since as string | undefined;
  let sinceMs: number | undefined;
  if (since !== undefined) {
    sinceMs = RFC3339.test(since) ? Date.parse(since) : NaN;
    if (Number.isNaN(sinceMs)) throw new UsageError(`--since ${JSON.stringify(since)} is not an RFC 3339 time such as 2026-01-31T12:00:00Z`);
  }
  const limitText = args.flags.limit as string | undefined;
  const limit = limitText === undefined ? 100 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100_000) throw new UsageError(`--limit ${JSON.stringify(limitText)} must be a whole number from 1 to 100000`);
  await withAdmin(args, io, async (ctx) => {
    const who = args.flags.principal as string | undefined;
    const principalId = who === undefined ? undefined : ((await ctx.principals.find(who))?.id ?? who);
    const events = await ctx.audit.list({ principalId, sinceMs, limit });
    if (wantsJson(args)) return printJson(io, events);
    printTable(io, ["TIME", "ACTION", "OUTCOME", "PRINCIPAL", "SOURCE IP", "TARGET", "DETAIL"], events.map((e) => [e.at, e.action, e.outcome, e.principal_id, e.source_ip, e.target, e.detail]), "No audit events match.");
  });
  return EXIT.ok;
}
