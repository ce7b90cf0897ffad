// `agent gateway token ...`: personal access tokens. `create` prints the token once, to stdout only.
import { CliError, EXIT, UsageError, type Io, type ParsedArgs } from "../../util/cli-command.ts";
import { PatError, type PatInfo } from "../auth/pats.ts";
import { PrincipalError } from "../auth/principals.ts";
import type { GatewayContext } from "../context.ts";
import { cliActor, withAdmin } from "./admin-context.ts";
import { iso, printJson, printTable, wantsJson } from "./format.ts";

const toJson = (t: PatInfo) => ({ id: t.id, principal_id: t.principalId, label: t.label, created_at: iso(t.createdAt), last_used_at: iso(t.lastUsedAt), revoked: t.revoked });

async function admin<T>(args: ParsedArgs, io: Io, work: (ctx: GatewayContext) => Promise<T> | T): Promise<T> {
  try {
    return await withAdmin(args, io, async (ctx) => work(ctx));
  } catch (error) {
    if (error instanceof PrincipalError || error instanceof PatError) throw new CliError(error.message);
    throw error;
  }
}

export async function create(args: ParsedArgs, io: Io): Promise<number> {
  const label = args.flags.label;
  if (typeof label !== "string") throw new UsageError("token create needs --label <text>");
  await admin(args, io, async (ctx) => {
    const p = await ctx.principals.get(args.positionals[0]!);
    const { info, token } = await ctx.pats.create(p.id, label);
    await ctx.audit.record({ action: "token.create", outcome: "success", principalId: p.id, target: info.id, detail: cliActor() });
    if (wantsJson(args)) printJson(io, { ...toJson(info), token });
    else {
      io.out(`${token}\n`);
      io.err(`Created token ${info.id} ("${info.label}") for ${p.username}. It is shown only this once.\n`);
    }
  });
  return EXIT.ok;
}

export async function list(args: ParsedArgs, io: Io): Promise<number> {
  await admin(args, io, async (ctx) => {
    const p = await ctx.principals.get(args.positionals[0]!);
    const tokens = await ctx.pats.list(p.id);
    if (wantsJson(args)) return printJson(io, tokens.map(toJson));
    printTable(io, ["ID", "LABEL", "CREATED", "LAST USED"], tokens.map((t) => [t.id, t.label, iso(t.createdAt), iso(t.lastUsedAt) ?? "never"]), `${p.username} has no live tokens.`);
  });
  return EXIT.ok;
}

export async function revoke(args: ParsedArgs, io: Io): Promise<number> {
  await admin(args, io, async (ctx) => {
    const existing = await ctx.pats.get(args.positionals[0]!);
    if (existing?.revoked) throw new CliError(`token ${existing.id} is already revoked`);
    const t = await ctx.pats.revoke(args.positionals[0]!);
    await ctx.audit.record({ action: "token.revoke", outcome: "success", principalId: t.principalId, target: t.id, detail: cliActor() });
    if (wantsJson(args)) printJson(io, toJson(t));
    else io.out(`Revoked token ${t.id} ("${t.label}").\n`);
  });
  return EXIT.ok;
}
