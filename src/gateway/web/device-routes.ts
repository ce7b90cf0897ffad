// /device: a signed-in person approves or denies a pending device authorization (RFC 8628). The OAuth
// endpoints create the requests and exchange approved ones for tokens; this page only decides them.
// Wrong, expired or used codes count toward the device limiter.
import { and, eq, gt } from "drizzle-orm";
import { elysiaApp } from "../../util/elysia-app.ts";
import type { GatewayContext } from "../context.ts";
import { oauthClients, oauthDeviceCodes } from "../db/schema.ts";
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

  const pending = (userCode: string): DeviceRequestView | undefined => {
    const row = ctx.db
      .select({ code: oauthDeviceCodes, clientName: oauthClients.name })
      .from(oauthDeviceCodes)
      .innerJoin(oauthClients, eq(oauthClients.id, oauthDeviceCodes.clientId))
      .where(and(eq(oauthDeviceCodes.userCode, userCode), eq(oauthDeviceCodes.status, "pending"), gt(oauthDeviceCodes.expiresAt, ctx.clock.now())))
      .get();
    return row && { userCode: row.code.userCode, clientName: row.clientName, scopes: row.code.scopes, expiresAt: row.code.expiresAt };
  };

  const decide = (approve: boolean) =>
    h.action(({ form, principalId, ip }) => {
      const admission = ctx.limiters.device.admit(ip);
      if (!admission.allowed) return h.notice("error", `Too many attempts. Try again in ${admission.retryAfterSecs} seconds.`);
      const request = pending(normalizeUserCode(form.user_code ?? ""));
      if (!request) {
        admission.ticket.fail();
        ctx.audit.record({ action: approve ? "device.approve" : "device.deny", outcome: "failure", principalId, sourceIp: ip, detail: "unknown, expired or already decided code" });
        return h.notice("error", "That code is not valid, has expired, or was already used.");
      }
      const scopes = request.scopes.filter((s) => form[`scope_${s}`] === "1");
      if (approve && scopes.length === 0) {
        admission.ticket.succeed();
        return h.notice("error", "Choose at least one scope to approve, or deny the request.");
      }
      const changed = ctx.db
        .update(oauthDeviceCodes)
        .set(approve ? { status: "approved", principalId, scopes } : { status: "denied", principalId })
        .where(and(eq(oauthDeviceCodes.userCode, request.userCode), eq(oauthDeviceCodes.status, "pending")))
        .returning({ code: oauthDeviceCodes.userCode })
        .all().length;
      admission.ticket.succeed();
      ctx.audit.record({ action: approve ? "device.approve" : "device.deny", outcome: changed ? "success" : "failure", principalId, sourceIp: ip, target: request.userCode, detail: approve ? `scopes: ${scopes.join(" ")}` : null });
      if (!changed) return h.notice("error", "That request was decided elsewhere in the meantime.");
      if (!approve) return h.notice("notice", `Denied: ${request.clientName} was refused.`);
      const reach = scopes.includes("machine") ? "" : " With only the project scope it can reach no route of this gateway yet.";
      return h.notice("notice", `Approved: ${request.clientName} can now finish signing in on the device.${reach}`);
    }, "/device");

  return elysiaApp({ name: "gateway-web-device" })
    .get(
      "/device",
      ({ request }) => {
        const url = new URL(request.url);
        const typed = url.searchParams.get("user_code");
        const code = typed === null ? undefined : normalizeUserCode(typed).slice(0, 16);
        const who = h.current(request);
        if (!who) return h.redirect(`/login?next=${encodeURIComponent(code ? `/device?user_code=${code}` : "/device")}`);
        const rawFlash = h.store.takeFlash(who.session.id);
        const flash = rawFlash ? (JSON.parse(rawFlash) as { kind: "notice" | "error"; text: string }) : undefined;
        if (!code) return htmlResponse(200, deviceEntryPage(name, flash));
        const { ip } = requestMeta(request);
        const admission = ctx.limiters.device.admit(ip);
        if (!admission.allowed) return htmlErrorResponse(429, `Too many attempts. Try again in ${admission.retryAfterSecs} seconds.`, { "Retry-After": String(admission.retryAfterSecs) });
        const found = pending(code);
        if (!found) {
          admission.ticket.fail();
          return htmlResponse(404, deviceEntryPage(name, { kind: "error", text: "That code is not valid, has expired, or was already used." }, code));
        }
        admission.ticket.succeed();
        return htmlResponse(200, deviceConfirmPage(name, who.session.csrfToken, found));
      },
      HIDE,
    )
    .post("/device/approve", decide(true), HIDE)
    .post("/device/deny", decide(false), HIDE);
}
