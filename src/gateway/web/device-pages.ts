// The /device pages: enter a user code, then approve (optionally narrowing the scopes) or deny.
import { html, layout } from "./html.ts";

export interface DeviceRequestView {
  userCode: string;
  clientName: string;
  scopes: string[];
  expiresAt: number;
}

export function deviceEntryPage(name: string, flash?: { kind: "notice" | "error"; text: string }, code = ""): string {
  return layout(
    "Connect a device",
    name,
    html`<section><h1>Connect a device</h1>
${flash ? html`<p class="${flash.kind}" role="status">${flash.text}</p>` : ""}
<form method="get" action="/device">
<label for="user_code">Code shown on the device</label><input type="text" id="user_code" name="user_code" value="${code}" autocomplete="off" autocapitalize="characters" required maxlength="16">
<button type="submit">Continue</button></form>
<p><a href="/">Back to the dashboard</a></p></section>`,
  );
}

export function deviceConfirmPage(name: string, csrf: string, request: DeviceRequestView): string {
  const hidden = html`<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="user_code" value="${request.userCode}">`;
  return layout(
    "Approve device",
    name,
    html`<section><h1>Approve device access?</h1>
<p><strong>${request.clientName}</strong> asks for access with code <code id="device-code">${request.userCode}</code>.
Only approve if that code is shown on a device you are using right now.</p>
<form method="post" action="/device/approve">${hidden}
<fieldset><legend>Grant these scopes</legend>
${request.scopes.map((s) => html`<label><input type="checkbox" name="scope_${s}" value="1" checked> ${s}</label>`)}
</fieldset>
<button type="submit" id="approve">Approve</button></form>
<form method="post" action="/device/deny">${hidden}<button type="submit" id="deny">Deny</button></form>
</section>`,
  );
}
