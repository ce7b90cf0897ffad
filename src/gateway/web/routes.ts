// Web UI routes at the root: login, dashboard, token/password/session/grant actions, logout.
// Every POST checks the form type, same-origin headers and the CSRF token, and answers 303.
import { randomBytes } from "node:crypto";
import { elysiaApp } from "../../util/elysia-app.ts";
import { type LoginDeps, verifyLogin } from "../auth/login.ts";
import { PatError } from "../auth/pats.ts";
import { accountLimiter } from "../auth/account-limiter.ts";
import { listGrants, replacePassword, revokeGrants } from "../auth/revocation.ts";
import type { GatewayContext } from "../context.ts";
import { requestMeta } from "../server/request-meta.ts";
import { clearCookie, loginCsrfCookieName, readCookie, serializeCookie, sessionCookieName } from "./cookies.ts";
import { sameOrigin, tokensMatch } from "./csrf.ts";
import { htmlResponse, STYLESHEET } from "./html.ts";
import { dashboardPage, htmlErrorResponse, loginPage, type DashboardData } from "./pages.ts";
import { WebSessionStore, type WebSession } from "./web-sessions.ts";
import { type DeviceRouteDeps, deviceRoutes } from "./device-routes.ts";
import type { PrincipalDetail } from "../auth/principals.ts";

const HIDE = { detail: { hide: true } };

function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ Location: location });
  for (const c of cookies) headers.append("Set-Cookie", c);
  return new Response(null, { status: 303, headers });
}

async function readForm(request: Request): Promise<Record<string, string> | undefined> {
  if (!(request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded")) return undefined;
  const params = new URLSearchParams(await request.text());
  const out: Record<string, string> = {};
  for (const [k, v] of params) out[k] = v;
  return out;
}

type ActionWork = (a: { session: WebSession; principalId: string; form: Record<string, string>; ip: string; params: Record<string, string> }) => Promise<string | void> | string | void;

/** What the other web route groups share with this one. */
export interface WebHelpers {
  store: WebSessionStore;
  current(request: Request): Promise<{ session: WebSession; principal: PrincipalDetail } | undefined>;
  action(work: ActionWork, after?: string): (c: { request: Request; params: Record<string, string> }) => Promise<Response>;
  notice(kind: "notice" | "error", text: string): string;
  redirect(location: string): Response;
}

/** Where to go after signing in: only fixed internal pages, never a caller-chosen URL (no open redirects). */
export function safeNext(next: string | null | undefined): string {
  return next && /^\/device(\?user_code=[A-Z0-9-]{1,16})?$/.test(next) ? next : "/";
}

/** What the web UI uses (its login is verifyLogin's, its device pages deviceRoutes'). */
export type WebRouteDeps = LoginDeps & DeviceRouteDeps & Pick<GatewayContext, "hasher" | "pats" | "principals" | "streams" | "tls">;

export function webRoutes(ctx: WebRouteDeps) {
  // Behind a TLS-terminating proxy (https external_url) the browser still sees HTTPS: keep Secure cookies.
  const tls = ctx.tls || (ctx.config.auth.external_url?.startsWith("https:") ?? false);
  const store = new WebSessionStore(ctx.db, ctx.clock, ctx.config.auth.session);
  const cookieName = sessionCookieName(tls);
  const loginCookie = loginCsrfCookieName(tls);
  const name = ctx.config.display_name;

  const current = async (request: Request) => {
    const session = await store.resolve(readCookie(request, cookieName));
    const principal = session && await ctx.principals.find(session.principalId);
    return session && principal ? { session, principal } : undefined;
  };

  /** A state-changing form post by a signed-in user; answers 303 to `after`. */
  const action = (work: ActionWork, after = "/") =>
    async ({ request, params }: { request: Request; params: Record<string, string> }) => {
      const form = await readForm(request);
      if (!form) return htmlErrorResponse(400, "Expected a form submission.");
      if (!sameOrigin(request, ctx.config.auth.external_url)) return htmlErrorResponse(403, "Cross-site form submissions are refused.");
      const who = await current(request);
      if (!who) return redirect("/login");
      if (!tokensMatch(who.session.csrfToken, form.csrf)) return htmlErrorResponse(403, "The form expired or did not come from this site. Reload the page and try again.");
      const flash = await work({ session: who.session, principalId: who.principal.id, form, ip: requestMeta(request).ip, params });
      if (flash) await store.setFlash(who.session.id, flash);
      return redirect(after);
    };

  const notice = (kind: "notice" | "error", text: string) => JSON.stringify({ kind, text });
  const helpers: WebHelpers = { store, current, action, notice, redirect: (location) => redirect(location) };

  return elysiaApp({ name: "gateway-web" })
    .use(deviceRoutes(ctx, helpers))
    .get("/static/gateway.css", () => new Response(STYLESHEET, { headers: { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "public, max-age=3600" } }), HIDE)
    .get(
      "/login",
      async ({ request }) => {
        const next = safeNext(new URL(request.url).searchParams.get("next"));
        if (await current(request)) return redirect(next);
        const csrf = randomBytes(32).toString("base64url");
        return htmlResponse(200, loginPage(name, csrf, undefined, next), { "Set-Cookie": serializeCookie(loginCookie, csrf, tls) });
      },
      HIDE,
    )
    .post(
      "/login",
      async ({ request }) => {
        const form = await readForm(request);
        if (!form) return htmlErrorResponse(400, "Expected a form submission.");
        if (!sameOrigin(request, ctx.config.auth.external_url)) return htmlErrorResponse(403, "Cross-site form submissions are refused.");
        const csrf = readCookie(request, loginCookie);
        if (!tokensMatch(csrf, form.csrf)) return htmlErrorResponse(403, "The sign-in form expired. Reload the page and try again.");
        const { ip } = requestMeta(request);
        const next = safeNext(form.next);
        const result = await verifyLogin(ctx, form.username ?? "", form.password ?? "", ip);
        if (!result.ok && result.reason === "locked") {
          return htmlResponse(429, loginPage(name, csrf!, `Too many failed sign-ins. Try again in ${result.retryAfterSecs} seconds.`, next), { "Retry-After": String(result.retryAfterSecs) });
        }
        if (!result.ok) return htmlResponse(401, loginPage(name, csrf!, "Wrong username or password.", next));
        const previous = await store.resolve(readCookie(request, cookieName));
        if (previous) await store.revoke(previous.principalId, previous.id);
        const { secret } = await store.create(result.principal.id, ip, request.headers.get("user-agent"));
        return redirect(next, [serializeCookie(cookieName, secret, tls), clearCookie(loginCookie, tls)]);
      },
      HIDE,
    )
    .get(
      "/",
      async ({ request }) => {
        const who = await current(request);
        if (!who) return redirect("/login");
        const rawFlash = await store.takeFlash(who.session.id);
        const data: DashboardData = {
          gatewayName: name,
          principal: who.principal,
          session: who.session,
          tokens: await ctx.pats.list(who.principal.id),
          sessions: await store.list(who.principal.id),
          grants: await listGrants(ctx.db, who.principal.id),
          flash: rawFlash ? (JSON.parse(rawFlash) as DashboardData["flash"]) : undefined,
        };
        return htmlResponse(200, dashboardPage(data));
      },
      HIDE,
    )
    .post(
      "/tokens",
      action(async ({ principalId, form, ip }) => {
        try {
          const { info, token } = await ctx.pats.create(principalId, form.label ?? "");
          await ctx.audit.record({ action: "token.create", outcome: "success", principalId, sourceIp: ip, target: info.id });
          return JSON.stringify({ kind: "token", token, label: info.label });
        } catch (error) {
          if (error instanceof PatError) return notice("error", error.message);
          throw error;
        }
      }),
      HIDE,
    )
    .post(
      "/tokens/:id/revoke",
      action(async ({ principalId, params, ip }) => {
        const token = await ctx.pats.get(params.id ?? "");
        if (!token || token.principalId !== principalId || token.revoked) return notice("error", "That token does not exist or is already revoked.");
        await ctx.pats.revoke(token.id);
        await ctx.streams.sweep();
        await ctx.audit.record({ action: "token.revoke", outcome: "success", principalId, sourceIp: ip, target: token.id });
        return notice("notice", `Token “${token.label}” revoked.`);
      }),
      HIDE,
    )
    .post(
      "/password",
      action(async ({ session, principalId, form, ip }) => {
        const hash = await ctx.principals.passwordHash(principalId);
        if (hash === undefined) return notice("error", "This account has no password to change.");
        const admission = await ctx.limiters.login.admit(ip);
        if (!admission.allowed) return notice("error", `Too many failed attempts. Try again in ${admission.retryAfterSecs} seconds.`);
        // The current password is a password check like a sign-in: the per-account counter applies too.
        const perAccount = await accountLimiter(ctx).admit(principalId, ip);
        if (!perAccount.allowed) {
          await admission.ticket.abort();
          return notice("error", `Too many failed attempts. Try again in ${perAccount.retryAfterSecs} seconds.`);
        }
        if (!(await ctx.hasher.verify(form.current ?? "", hash))) {
          await admission.ticket.fail();
          await perAccount.ticket.fail();
          await ctx.audit.record({ action: "password.change", outcome: "failure", principalId, sourceIp: ip, detail: "wrong current password" });
          return notice("error", "The current password is wrong.");
        }
        await admission.ticket.succeed();
        await perAccount.ticket.succeed();
        const next = form.new ?? "";
        if (next !== (form.confirm ?? "")) return notice("error", "The new passwords do not match.");
        const problem = ctx.hasher.check(next);
        if (problem) return notice("error", `The new password was not accepted: ${problem}.`);
        const newHash = await ctx.hasher.hash(next);
        await replacePassword(ctx, principalId, newHash, session.id);
        await ctx.audit.record({ action: "password.change", outcome: "success", principalId, sourceIp: ip, detail: "other sessions, OAuth grants and personal access tokens revoked" });
        return notice("notice", "Password changed. Other browser sessions, OAuth grants and personal access tokens were revoked.");
      }),
      HIDE,
    )
    .post(
      "/sessions/:id/revoke",
      action(async ({ principalId, params, ip }) => {
        const ok = await store.revoke(principalId, params.id ?? "");
        if (ok) await ctx.audit.record({ action: "web_session.revoke", outcome: "success", principalId, sourceIp: ip, target: params.id });
        return ok ? notice("notice", "Session signed out.") : notice("error", "That session does not exist or has ended.");
      }),
      HIDE,
    )
    .post(
      "/grants/:id/revoke",
      action(async ({ principalId, params, ip }) => {
        const n = await revokeGrants(ctx.db, ctx.clock, principalId, params.id ?? "");
        await ctx.streams.sweep();
        if (n) await ctx.audit.record({ action: "oauth_grant.revoke", outcome: "success", principalId, sourceIp: ip, target: params.id });
        return n ? notice("notice", "Grant revoked.") : notice("error", "That grant does not exist or is already revoked.");
      }),
      HIDE,
    )
    .post(
      "/logout",
      async ({ request }) => {
        const form = await readForm(request);
        if (!form) return htmlErrorResponse(400, "Expected a form submission.");
        if (!sameOrigin(request, ctx.config.auth.external_url)) return htmlErrorResponse(403, "Cross-site form submissions are refused.");
        const who = await current(request);
        if (who) {
          if (!tokensMatch(who.session.csrfToken, form.csrf)) return htmlErrorResponse(403, "The form expired. Reload the page and try again.");
          await store.revoke(who.principal.id, who.session.id);
          await ctx.audit.record({ action: "logout", outcome: "success", principalId: who.principal.id, sourceIp: requestMeta(request).ip });
        }
        return redirect("/login", [clearCookie(cookieName, tls)]);
      },
      HIDE,
    );
}

