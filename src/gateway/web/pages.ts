// The server-rendered pages: login, dashboard, and plain error pages.
import type { PatInfo } from "../auth/pats.ts";
import type { GrantInfo } from "../auth/revocation.ts";
import type { PrincipalDetail } from "../auth/principals.ts";
import { html, htmlResponse, layout, type Raw } from "./html.ts";
import type { WebSession } from "./web-sessions.ts";

export function loginPage(name: string, csrf: string, error?: string, next = "/"): string {
  return layout(
    "Sign in",
    name,
    html`<section><h1>Sign in</h1>
${error ? html`<p class="error" role="alert">${error}</p>` : ""}
<form method="post" action="/login">
<input type="hidden" name="csrf" value="${csrf}">
${next !== "/" ? html`<input type="hidden" name="next" value="${next}">` : ""}
<label for="username">Username</label><input type="text" id="username" name="username" autocomplete="username" required maxlength="64">
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
<p><small>Accounts bound to a system user sign in with that system username and password.</small></p>
<button type="submit">Sign in</button>
</form></section>`,
  );
}

export interface DashboardData {
  gatewayName: string;
  principal: PrincipalDetail;
  session: WebSession;
  tokens: PatInfo[];
  sessions: WebSession[];
  grants: GrantInfo[];
  flash?: { kind: "token"; token: string; label: string } | { kind: "notice" | "error"; text: string };
}

const when = (ms: number | null) => (ms === null ? "never" : new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC");

export function dashboardPage(d: DashboardData): string {
  const csrf = d.session.csrfToken;
  const hidden = html`<input type="hidden" name="csrf" value="${csrf}">`;
  const post = (action: string, label: string): Raw => html`<form class="inline" method="post" action="${action}">${hidden}<button type="submit">${label}</button></form>`;
  const flash = d.flash;
  return layout(
    "Dashboard",
    d.gatewayName,
    html`<h1>Signed in as ${d.principal.displayName ?? d.principal.username} <small>(${d.principal.username})</small></h1>
${post("/logout", "Sign out")} · <a href="/device">Connect a device</a>
${flash?.kind === "token" ? html`<section id="new-token"><h2>New token “${flash.label}”</h2><p class="notice">Copy it now: it is shown only this once.</p><code class="token" id="new-token-value">${flash.token}</code></section>` : ""}
${flash && flash.kind !== "token" ? html`<p class="${flash.kind}" role="status">${flash.text}</p>` : ""}
<section id="tokens"><h2>Personal access tokens</h2>
${d.tokens.length === 0 ? html`<p>No tokens.</p>` : html`<table><thead><tr><th>Label</th><th>Created</th><th>Last used</th><th></th></tr></thead><tbody>
${d.tokens.map((t) => html`<tr data-token-id="${t.id}"><td>${t.label}</td><td>${when(t.createdAt)}</td><td>${when(t.lastUsedAt)}</td><td>${post(`/tokens/${t.id}/revoke`, "Revoke")}</td></tr>`)}
</tbody></table>`}
<form method="post" action="/tokens">${hidden}<label for="label">Label</label><input type="text" id="label" name="label" required maxlength="100"><button type="submit">Create token</button></form>
</section>
<section id="password"><h2>Password</h2>
${d.principal.hasPassword
      ? html`<p>Changing the password signs out every other browser session and revokes all OAuth grants and personal access tokens.</p>
<form method="post" action="/password">${hidden}
<label for="current">Current password</label><input type="password" id="current" name="current" autocomplete="current-password" required>
<label for="new">New password</label><input type="password" id="new" name="new" autocomplete="new-password" required>
<label for="confirm">Repeat new password</label><input type="password" id="confirm" name="confirm" autocomplete="new-password" required>
<button type="submit">Change password</button></form>`
      : html`<p>This account signs in through the system (PAM); change that password on the machine.</p>`}
</section>
<section id="grants"><h2>OAuth grants</h2>
${d.grants.length === 0 ? html`<p>No applications hold a grant.</p>` : html`<table><thead><tr><th>Application</th><th>Scopes</th><th>Granted</th><th></th></tr></thead><tbody>
${d.grants.map((g) => html`<tr><td>${g.clientName}</td><td>${g.scopes.join(" ")}</td><td>${when(g.createdAt)}</td><td>${post(`/grants/${g.id}/revoke`, "Revoke")}</td></tr>`)}
</tbody></table>`}
</section>
<section id="sessions"><h2>Browser sessions</h2><table><thead><tr><th>Started</th><th>Last seen</th><th>From</th><th></th></tr></thead><tbody>
${d.sessions.map((s) => html`<tr><td>${when(s.createdAt)}</td><td>${when(s.lastSeenAt)}</td><td>${s.sourceIp ?? ""} ${s.userAgent ?? ""}</td><td>${s.id === d.session.id ? "this session" : post(`/sessions/${s.id}/revoke`, "Sign out")}</td></tr>`)}
</tbody></table></section>`,
  );
}

const TITLES: Record<number, string> = {
  400: "Bad request",
  403: "Forbidden",
  404: "Not found",
  413: "Request too large",
  422: "Invalid input",
  429: "Too many attempts",
  503: "Temporarily unavailable",
};

export function htmlErrorResponse(status: number, message?: string, headers: Record<string, string> = {}): Response {
  const title = TITLES[status] ?? "Something went wrong";
  return htmlResponse(status, layout(title, "agent gateway", html`<section><h1>${title}</h1>${message ? html`<p>${message}</p>` : ""}<p><a href="/">Back</a></p></section>`), headers);
}
