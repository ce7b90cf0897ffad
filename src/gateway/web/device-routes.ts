// /device: a signed-in person approves or denies a pending device authorization (RFC 8628). The OAuth
// endpoints create the requests and exchange approved ones for tokens; this page only decides them.
// Wrong, expired or used codes count toward the device limiter.
import { first } from "../db/handle.ts";
import { and, eq, gt } from "drizzle-orm";
import { elysiaApp } from "../../util/elysia-app.ts";
import type { GatewayContext } from "../context.ts";
import { requestMeta } from "../server/request-meta.ts";
import { deviceConfirmPage, deviceEntryPage, type DeviceRequestView } from "./device-pages.ts";
import { htmlResponse } from "./html.ts";
import { htmlErrorResponse } from "./pages.ts";
import type { WebHelpers } from "./routes.ts";

const HIDE = { detail: { hide: true } };

/** User codes are stored uppercase as `XXXX-XXXX`; people may type them in any case, with or without the dash. */
export function normalizeUserCode(input: string): string {
  const bare = input.toUpperCase().replace(/[^A-Z0-9]/g, "");
  return bare.length === 8 ? `${bare.slice(0, 4)}-${bare.slice(4)}` : bare;
}

export type DeviceRouteDeps = Pick<GatewayContext, "audit" | "clock" | "config" | "db" | "limiters">;

export function deviceRoutes(ctx: DeviceRouteDeps, h: WebHelpers) {
  const name = ctx.config.display_name;

  const pending = async (userCode: string): Promise<DeviceRequestView | undefined> => {
    const row = (await first(ctx.db
      .select({ code: ctx.db.t.oauthDeviceCodes, clientName: ctx.db.t.oauthClients.name })
      .from(ctx.db.t.oauthDeviceCodes)
      .innerJoin(ctx.db.t.oauthClients, eq(ctx.db.t.oauthClients.id, ctx.db.t.oauthDeviceCodes.clientId))
      .where(and(eq(ctx.db.t.oauthDeviceCodes.userCode, userCode), eq(ctx.db.t.oauthDeviceCodes.status, "pending"), gt(ctx.db.t.oauthDeviceCodes.expiresAt, ctx.clock.now())))
      ));
    return row && { userCode: row.code.userCode, clientName: row.clientName, scopes: row.code.scopes, expiresAt: row.code.expiresAt };
  };

  const decide = (approve: boolean) =>
    h.action(async ({ form, principalId, ip }) => {
      const admission = await ctx.limiters.device.admit(ip);
      if (!admission.allowed) return h.notice("error", `Too many attempts. Try again in ${admission.retryAfterSecs} seconds.`);
      const request = await pending(normalizeUserCode(form.user_code ?? ""));
      if (!request) {
        await admission.ticket.fail();
        await ctx.audit.record({ action: approve ? "device.approve" : "device.deny", outcome: "failure", principalId, sourceIp: ip, detail: "unknown, expired or already decided code" });
        return h.notice("error", "That code is not valid, has expired, or was already used.");
      }
      const scopes = request.scopes.filter((s) => form[`scope_${s}`] === "1");
      if (approve && scopes.length === 0) {
        await admission.ticket.succeed();
        return h.notice("error", "Choose at least one scope to approve, or deny the request.");
      }
      const changed = (await ctx.db
        .update(ctx.db.t.oauthDeviceCodes)
        .set(approve ? { status: "approved", principalId, scopes } : { status: "denied", principalId })
        .where(and(eq(ctx.db.t.oauthDeviceCodes.userCode, request.userCode), eq(ctx.db.t.oauthDeviceCodes.status, "pending")))
        .returning({ code: ctx.db.t.oauthDeviceCodes.userCode })
        ).length;
      await admission.ticket.succeed();
      await ctx.audit.record({ action: approve ? "device.approve" : "device.deny", outcome: changed ? "success" : "failure", principalId, sourceIp: ip, target: request.userCode, detail: approve ? `scopes: ${scopes.join(" ")}` : null });
      if (!changed) return h.notice("error", "That request was decided elsewhere in the meantime.");
      if (!approve) return h.notice("notice", `Denied: ${request.clientName} was refused.`);
      const reach = scopes.includes("machine") ? "" : " With only the project scope it can reach no route of this gateway yet.";
      return h.notice("notice", `Approved: ${request.clientName} can now finish signing in on the device.${reach}`);
    }, "/device");

  return elysiaApp({ name: "gateway-web-device" })
    .get(
      "/device",
      async ({ request }) => {
        const url = new URL(request.url);
        const typed = url.searchParams.get("user_code");
        const code = typed === null ? undefined : normalizeUserCode(typed).slice(0, 16);
        const who = await h.current(request);
        if (!who) return h.redirect(`/login?next=${encodeURIComponent(code ? `/device?user_code=${code}` : "/device")}`);
        const rawFlash = await h.store.takeFlash(who.session.id);
        const flash = rawFlash ? (JSON.parse(rawFlash) as { kind: "notice" | "error"; text: string }) : undefined;
        if (!code) return htmlResponse(200, deviceEntryPage(name, flash));
        const { ip } = requestMeta(request);
        const admission = await ctx.limiters.device.admit(ip);
        if (!admission.allowed) return htmlErrorResponse(429, `Too many attempts. Try again in ${admission.retryAfterSecs} seconds.`, { "Retry-After": String(admission.retryAfterSecs) });
        const found = await pending(code);
        if (!found) {
          await admission.ticket.fail();
          return htmlResponse(404, deviceEntryPage(name, { kind: "error", text: "That code is not valid, has expired, or was already used." }, code));
        }
        await admission.ticket.succeed();
        return htmlResponse(200, deviceConfirmPage(name, who.session.csrfToken, found));
      },
      HIDE,
    )
    .post("/device/approve", decide(true), HIDE)
    .post("/device/deny", decide(false), HIDE);
}
