// `agent gateway principal ...`: principals and their password / PAM bindings, straight in the database.
import { CliError, EXIT, UsageError, type Io, type ParsedArgs } from "../../util/cli-command.ts";
import { PasswordRuleError } from "../auth/password.ts";
import { PrincipalError, type PrincipalDetail } from "../auth/principals.ts";
import { replacePassword, type PasswordRevocations } from "../auth/revocation.ts";
import type { GatewayContext } from "../context.ts";
import { cliActor, withAdmin } from "./admin-context.ts";
import { iso, printJson, printTable, wantsJson } from "./format.ts";

function toJson(p: PrincipalDetail) {
  return {
    id: p.id,
    username: p.username,
    display_name: p.displayName,
    kind: p.kind,
    password: p.hasPassword,
    pam: p.pam ? { service: p.pam.service, system_user: p.pam.systemUser } : null,
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
  };
}

function printOne(io: Io, args: ParsedArgs, p: PrincipalDetail, headline?: string): void {
  if (wantsJson(args)) return printJson(io, toJson(p));
  if (headline) io.out(`${headline}\n`);
  printTable(io, ["FIELD", "VALUE"], [
    ["id", p.id],
    ["username", p.username],
    ["display name", p.displayName],
    ["kind", p.kind],
    ["password", p.hasPassword ? "set" : "not set"],
    ["pam", p.pam ? `${p.pam.systemUser} (service ${p.pam.service})` : "not bound"],
    ["created", iso(p.createdAt)],
  ]);
}

/** Runs `work` and turns domain errors into CLI errors with the right exit code. */
async function admin<T>(args: ParsedArgs, io: Io, work: (ctx: GatewayContext) => Promise<T> | T): Promise<T> {
  try {
    return await withAdmin(args, io, async (ctx) => work(ctx));
  } catch (error) {
    if (error instanceof PrincipalError || error instanceof PasswordRuleError) throw new CliError(error.message);
    throw error;
  }
}

const audit = async (ctx: GatewayContext, action: string, target: string) =>
  await ctx.audit.record({ action, outcome: "success", target, detail: cliActor() });

// The spec's default: an administrator's reset leaves what the principal signed in with alone. `--revoke`
// revokes it as the dashboard's password change does, through the same function.
const KEPT = "Existing sessions and tokens stay valid (--revoke revokes them, as a password change on the dashboard does).";

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What a password reset revoked, as the dashboard's password change does (auth/revocation.ts). */
function revokedText(r: PasswordRevocations): string {
  return `Revoked ${count(r.webSessions, "browser session", "browser sessions")}, ${count(r.oauthGrants, "OAuth grant", "OAuth grants")} (with their tokens and the clients registered under them) and ${count(r.personalAccessTokens, "personal access token", "personal access tokens")}.`;
}

const revokedJson = (r: PasswordRevocations) => ({ web_sessions: r.webSessions, oauth_grants: r.oauthGrants, personal_access_tokens: r.personalAccessTokens });

const auditReset = async (ctx: GatewayContext, action: string, target: string, r: PasswordRevocations) =>
  await ctx.audit.record({ action, outcome: "success", target, detail: `${cliActor()}; revoked web sessions ${r.webSessions}, OAuth grants ${r.oauthGrants}, personal access tokens ${r.personalAccessTokens}` });

export async function create(args: ParsedArgs, io: Io): Promise<number> {
  const [username] = args.positionals as [string];
  await admin(args, io, async (ctx) => {
    const p = await ctx.principals.create(username, args.flags["display-name"] as string | undefined);
    audit(ctx, "principal.create", p.id);
    printOne(io, args, await ctx.principals.get(p.id), wantsJson(args) ? undefined : `Created principal ${p.username} (${p.id}).`);
  });
  return EXIT.ok;
}

export async function list(args: ParsedArgs, io: Io): Promise<number> {
  await admin(args, io, async (ctx) => {
    const all = await ctx.principals.list();
    if (wantsJson(args)) return printJson(io, all.map(toJson));
    printTable(io, ["ID", "USERNAME", "DISPLAY NAME", "PASSWORD", "PAM"], all.map((p) => [p.id, p.username, p.displayName, p.hasPassword ? "yes" : "no", p.pam ? `${p.pam.systemUser}@${p.pam.service}` : "no"]), "No principals. Create one with: agent gateway principal create <username>");
  });
  return EXIT.ok;
}

export async function show(args: ParsedArgs, io: Io): Promise<number> {
  await admin(args, io, async (ctx) => printOne(io, args, await ctx.principals.get(args.positionals[0]!)));
  return EXIT.ok;
}

export async function rename(args: ParsedArgs, io: Io): Promise<number> {
  const name = args.flags["display-name"];
  if (typeof name !== "string") throw new UsageError("principal rename needs --display-name <text>");
  await admin(args, io, async (ctx) => {
    const p = await ctx.principals.rename(args.positionals[0]!, name);
    audit(ctx, "principal.rename", p.id);
    printOne(io, args, p, wantsJson(args) ? undefined : `Renamed ${p.username}.`);
  });
  return EXIT.ok;
}

export async function remove(args: ParsedArgs, io: Io): Promise<number> {
  await admin(args, io, async (ctx) => {
    const p = await ctx.principals.delete(args.positionals[0]!);
    audit(ctx, "principal.delete", p.id);
    if (wantsJson(args)) printJson(io, { deleted: p.id });
    else io.out(`Deleted principal ${p.username} (${p.id}) with its credentials, tokens and sessions.\n`);
  });
  return EXIT.ok;
}

async function readNewPassword(args: ParsedArgs, io: Io, maxBytes: number): Promise<string> {
  if (args.flags["password-stdin"] === true) {
    const text = await io.stdin();
    const first = text.split(/\r?\n/)[0] ?? "";
    if (first === "") throw new CliError("no password on stdin: --password-stdin reads the first line of standard input");
    return first;
  }
  if (!process.stdin.isTTY || !io.isTty) {
    throw new CliError("set-password prompts on a terminal; in scripts pipe the password with --password-stdin");
  }
  const { password, isCancel } = await import("@clack/prompts");
  const first = await password({ message: "New password", validate: (v) => (v && Buffer.byteLength(v) > maxBytes ? `at most ${maxBytes} bytes` : undefined) });
  if (isCancel(first)) throw new CliError("cancelled");
  const again = await password({ message: "Repeat the password" });
  if (isCancel(again)) throw new CliError("cancelled");
  if (first !== again) throw new CliError("the passwords do not match; nothing was changed");
  return first;
}

export async function setPassword(args: ParsedArgs, io: Io): Promise<number> {
  await admin(args, io, async (ctx) => {
    const p = await ctx.principals.get(args.positionals[0]!);
    const pw = await readNewPassword(args, io, ctx.config.auth.password.max_password_bytes);
    const hash = await ctx.hasher.hash(pw);
    if (args.flags.revoke !== true) {
      await ctx.principals.setPasswordHash(p.id, hash);
      audit(ctx, "password.set", p.id);
      if (wantsJson(args)) printJson(io, { id: p.id, password: true });
      else io.out(`Password set for ${p.username}. ${KEPT}\n`);
      return;
    }
    const revoked = (await replacePassword(ctx, p.id, hash))!;
    auditReset(ctx, "password.set", p.id, revoked);
    if (wantsJson(args)) printJson(io, { id: p.id, password: true, revoked: revokedJson(revoked) });
    else io.out(`Password set for ${p.username}. ${revokedText(revoked)}\n`);
  });
  return EXIT.ok;
}

export async function removePassword(args: ParsedArgs, io: Io): Promise<number> {
  await admin(args, io, async (ctx) => {
    const p = await ctx.principals.get(args.positionals[0]!);
    if (args.flags.revoke !== true) {
      if (!await ctx.principals.removePassword(p.id)) throw new CliError(`${p.username} has no password`);
      audit(ctx, "password.remove", p.id);
      if (wantsJson(args)) printJson(io, { id: p.id, password: false });
      else io.out(`Password removed from ${p.username}. ${KEPT}\n`);
      return;
    }
    const revoked = await replacePassword(ctx, p.id, null);
    if (!revoked) throw new CliError(`${p.username} has no password`);
    auditReset(ctx, "password.remove", p.id, revoked);
    if (wantsJson(args)) printJson(io, { id: p.id, password: false, revoked: revokedJson(revoked) });
    else io.out(`Password removed from ${p.username}. ${revokedText(revoked)}\n`);
  });
  return EXIT.ok;
}

export async function setPam(args: ParsedArgs, io: Io): Promise<number> {
  const systemUser = args.flags["system-user"];
  if (typeof systemUser !== "string") throw new UsageError("principal set-pam needs --system-user <name>");
  await admin(args, io, async (ctx) => {
    const p = await ctx.principals.get(args.positionals[0]!);
    const service = (args.flags.service as string | undefined) ?? ctx.config.auth.pam.service;
    await ctx.principals.setPam(p.id, service, systemUser);
    audit(ctx, "pam.set", p.id);
    printOne(io, args, await ctx.principals.get(p.id), wantsJson(args) ? undefined : `${p.username} now signs in as system user ${systemUser} through PAM service ${service}.`);
  });
  return EXIT.ok;
}

export async function removePam(args: ParsedArgs, io: Io): Promise<number> {
  await admin(args, io, async (ctx) => {
    const p = await ctx.principals.get(args.positionals[0]!);
    if (!await ctx.principals.removePam(p.id)) throw new CliError(`${p.username} has no PAM binding`);
    audit(ctx, "pam.remove", p.id);
    if (wantsJson(args)) printJson(io, { id: p.id, pam: null });
    else io.out(`PAM binding removed from ${p.username}.\n`);
  });
  return EXIT.ok;
}
