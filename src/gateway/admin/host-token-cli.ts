// `agent gateway host-token ...`: host credentials (hst_), one host's right to join the gateway
// (docs/gateway-hosts.md). `create` prints the token once, to stdout only.
import { CliError, EXIT, UsageError, type Io, type ParsedArgs } from "../../util/cli-command.ts";
import { HostCredentialError, type HostCredentialInfo } from "../hosts/credentials.ts";
import type { GatewayContext } from "../context.ts";
import { cliActor, withAdmin } from "./admin-context.ts";
import { iso, printJson, printTable, wantsJson } from "./format.ts";

const toJson = (c: HostCredentialInfo) => ({ id: c.id, host: c.hostName, label: c.label, created_at: iso(c.createdAt), last_used_at: iso(c.lastUsedAt), revoked_at: iso(c.revokedAt) });

async function admin<T>(args: ParsedArgs, io: Io, work: (ctx: GatewayContext) => Promise<T> | T): Promise<T> {
  try {
    return await withAdmin(args, io, async (ctx) => work(ctx));
  } catch (error) {
    if (error instanceof HostCredentialError) throw new CliError(error.message);
    throw error;
  }
}

export async function create(args: ParsedArgs, io: Io): Promise<number> {
  const host = args.flags.host;
  if (typeof host !== "string") throw new UsageError("host-token create needs --host <name>");
  const label = args.flags.label;
  await admin(args, io, async (ctx) => {
    const { info, token } = await ctx.hostCredentials.create(host, typeof label === "string" ? label : undefined);
    await ctx.audit.record({ action: "host_token.create", outcome: "success", target: info.id, detail: `host ${info.hostName} ${cliActor()}` });
    if (wantsJson(args)) printJson(io, { ...toJson(info), token });
    else {
      io.out(`${token}\n`);
      io.err(`Created host token ${info.id} for host ${info.hostName}. It is shown only this once: pass it to \`agent gateway host --token\` on that host.\n`);
    }
  });
  return EXIT.ok;
}

export async function list(args: ParsedArgs, io: Io): Promise<number> {
  await admin(args, io, async (ctx) => {
    const credentials = await ctx.hostCredentials.list();
    if (wantsJson(args)) return printJson(io, credentials.map(toJson));
    printTable(
      io,
      ["ID", "HOST", "LABEL", "CREATED", "LAST USED", "REVOKED"],
      credentials.map((c) => [c.id, c.hostName, c.label || "-", iso(c.createdAt), iso(c.lastUsedAt) ?? "never", iso(c.revokedAt) ?? "-"]),
      "No host tokens.",
    );
  });
  return EXIT.ok;
}

export async function revoke(args: ParsedArgs, io: Io): Promise<number> {
  await admin(args, io, async (ctx) => {
    const c = await ctx.hostCredentials.revoke(args.positionals[0]!);
    await ctx.audit.record({ action: "host_token.revoke", outcome: "success", target: c.id, detail: `host ${c.hostName} ${cliActor()}` });
    if (wantsJson(args)) printJson(io, toJson(c));
    else io.out(`Revoked host token ${c.id} (host ${c.hostName}); its connections close.\n`);
  });
  return EXIT.ok;
}
