// Username + password login (web UI, terminal sign-in, PAM): the per-source login limiter first, then the
// per-account one (account-limiter.ts), then the password or PAM check.
// Unknown users and users without a usable credential cost a dummy hash, like a wrong password.
import { ProtocolError } from "../../protocol/errors.ts";
import type { GatewayContext } from "../context.ts";
import type { FailureTicket } from "../net/rate-limit.ts";
import { accountKey, accountLimiter, type AccountTicket } from "./account-limiter.ts";
import type { PrincipalDetail } from "./principals.ts";
import { logEvent } from "./failure-counts.ts";
import { redactText } from "../../util/redact.ts";
import { pamServiceProblem } from "./pam.ts";

export type LoginResult =
  | { ok: true; principal: PrincipalDetail; method: "password" | "pam" }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "locked"; retryAfterSecs: number };

/** Throws a 503 ProtocolError on internal failure (database, PAM system error); never counts those. */
/** What a login check uses. */
export type LoginDeps = Pick<GatewayContext, "limiters" | "principals" | "hasher" | "pam" | "audit" | "logger" | "authFailures" | "config" | "db" | "clock">;

export async function verifyLogin(ctx: LoginDeps, username: string, password: string, ip: string): Promise<LoginResult> {
  // The typed username is recorded only when it names a principal: people sometimes type a password into
  // the username field, and the audit log must never hold one.
  let principalId: string | undefined;
  let sourceTicket: FailureTicket | undefined;
  let accountTicket: AccountTicket;
  try {
    const admission = await ctx.limiters.login.admit(ip);
    if (!admission.allowed) {
      await safeAudit(ctx, { action: "login", outcome: "denied", sourceIp: ip, detail: "rate limited" });
      return { ok: false, reason: "locked", retryAfterSecs: admission.retryAfterSecs };
    }
    sourceTicket = admission.ticket;
    principalId = username.length <= 64 ? ((await ctx.principals.find(username)) ?? (await ctx.principals.findByPamUser(username)))?.id : undefined;
    const perAccount = await accountLimiter(ctx).admit(accountKey(principalId, username), ip);
    if (!perAccount.allowed) {
      await settleQuietly(ctx, "per-source", sourceTicket, "abort");
      await safeAudit(ctx, { action: "login", outcome: "denied", sourceIp: ip, target: principalId ?? "unknown username", detail: "rate limited (account)" });
      ctx.authFailures.count("login_locked");
      return { ok: false, reason: "locked", retryAfterSecs: perAccount.retryAfterSecs };
    }
    accountTicket = perAccount.ticket;
  } catch {
    if (sourceTicket) await settleQuietly(ctx, "per-source", sourceTicket, "abort");
    await safeAudit(ctx, { action: "login", outcome: "error", sourceIp: ip });
    throw new ProtocolError("unavailable", 503, "authentication is temporarily unavailable");
  }
  const ticket = both(ctx, sourceTicket, accountTicket);
  const target = () => principalId ?? "unknown username";
  // Sources that keep failing queue behind the others for a hash slot.
  const priority = sourceTicket.queuePriority;
  let outcome: { principal: PrincipalDetail; method: "password" | "pam" } | undefined;
  try {
    outcome = await check(ctx, username, password, priority);
  } catch (error) {
    await ticket.abort();
    await safeAudit(ctx, { action: "login", outcome: "error", sourceIp: ip, target: target() });
    ctx.authFailures.count("login_error");
    if (error instanceof ProtocolError && error.status === 503) throw error;
    logEvent(ctx.logger, "error", "auth.login_error", { error: redactText((error as Error).message ?? String(error)) });
    throw new ProtocolError("unavailable", 503, "authentication is temporarily unavailable");
  }
  if (!outcome) {
    await ticket.fail();
    await safeAudit(ctx, { action: "login", outcome: "failure", sourceIp: ip, target: target() });
    ctx.authFailures.count("login_invalid");
    return { ok: false, reason: "invalid" };
  }
  await ticket.succeed();
  await safeAudit(ctx, { action: "login", outcome: "success", principalId: outcome.principal.id, sourceIp: ip, detail: outcome.method });
  return { ok: true, ...outcome };
}

async function check(ctx: LoginDeps, username: string, password: string, priority: number) {
  const principal = username.length <= 64 ? ((await ctx.principals.find(username)) ?? (await ctx.principals.findByPamUser(username))) : undefined;
  const usable = principal && principal.kind === "human" ? principal : undefined;
  const hash = usable?.hasPassword ? await ctx.principals.passwordHash(usable.id) : undefined;
  if (hash !== undefined && (!usable!.pam || username === usable!.username)) {
    return (await ctx.hasher.verify(password, hash, priority)) ? { principal: usable!, method: "password" as const } : undefined;
  }
  if (usable?.pam && ctx.pam) {
    if (Buffer.byteLength(password) > ctx.config.auth.password.max_password_bytes) return undefined;
    const result = await ctx.pam.authenticate(usable.pam.service, usable.pam.systemUser, password);
    if (result === "error") {
      // The client sees a bare 503; the operator is told why (never the password or the account's name).
      const problem = pamServiceProblem(usable.pam.service);
      logEvent(ctx.logger, "error", "auth.pam_error", { service: usable.pam.service, principal: usable.id, problem: problem ?? "the PAM stack reported a system error (see the system log)" });
      throw new ProtocolError("unavailable", 503, "authentication is temporarily unavailable");
    }
    return result === "success" ? { principal: usable, method: "pam" as const } : undefined;
  }
  await ctx.hasher.verify(password, undefined, priority);
  return undefined;
}

/** One ticket settling the source's and the account's. A failed counter write is logged, not fatal. */
function both(ctx: LoginDeps, source: FailureTicket, account: AccountTicket): AccountTicket {
  const settle = async (outcome: "fail" | "succeed" | "abort") => {
    await settleQuietly(ctx, "per-source", source, outcome);
    await settleQuietly(ctx, "per-account", account, outcome);
  };
  return { fail: () => settle("fail"), succeed: () => settle("succeed"), abort: () => settle("abort") };
}

/** Settles a limiter ticket; when the database fails, the reservation stays counted (it slides out of the window). */
async function settleQuietly(ctx: LoginDeps, which: string, ticket: AccountTicket, outcome: "fail" | "succeed" | "abort"): Promise<void> {
  try {
    await ticket[outcome]();
  } catch (error) {
    ctx.logger.warn(`the ${which} sign-in counter could not be updated: ${(error as Error).message}`);
  }
}

async function safeAudit(ctx: LoginDeps, event: Parameters<LoginDeps["audit"]["record"]>[0]): Promise<void> {
  try {
    await ctx.audit.record(event);
  } catch (error) {
    ctx.logger.warn(`audit write failed: ${(error as Error).message}`);
  }
}
