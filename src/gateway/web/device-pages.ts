// The /device pages: enter a user code, then approve (optionally narrowing the scopes) or deny. The page
// says what each scope opens, and plainly that `machine` is shell access to this machine.
import { html, layout } from "./html.ts";

/** What a device can do with each scope, in the words the approval page shows (docs/gateway.md says the same). */
export const SCOPE_MEANINGS: Record<string, { opens: string; warning?: string }> = {
  machine: {
    opens: "Everything on this gateway: configurations, projects, sessions, the session proxy (talking to each agent) and the fleet catalog and events.",
    warning: "This is shell access: with it the device can run programs on this machine as the gateway's user (a configuration's pre-run script, the tools of an agent session).",
  },
  project: {
    opens: "Nothing on its own: no route of this gateway accepts it yet. A device holding only this scope can reach the public routes (health, version) and nothing else.",
  },
};

const meaning = (scope: string) => SCOPE_MEANINGS[scope] ?? { opens: "Not known to this gateway." };

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
${request.scopes.includes("machine") ? html`<p class="error" id="shell-warning" role="alert">Approving <code>machine</code> gives this device shell access to this machine.</p>` : ""}
<fieldset><legend>Grant these scopes</legend>
${request.scopes.map(
  (s) => html`<label><input type="checkbox" name="scope_${s}" value="1" checked> <code>${s}</code></label>
<p class="scope" id="scope-${s}">${meaning(s).opens}${meaning(s).warning ? html` <strong>${meaning(s).warning}</strong>` : ""}</p>`,
)}
</fieldset>
<button type="submit" id="approve">Approve</button></form>
<form method="post" action="/device/deny">${hidden}<button type="submit" id="deny">Deny</button></form>
</section>`,
  );
}
