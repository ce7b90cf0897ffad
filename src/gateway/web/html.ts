// HTML building blocks: escaping, the page layout and the stylesheet (served from this origin; no CDN).

export function esc(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** A tagged template whose interpolations are escaped unless wrapped with `raw`. */
export class Raw {
  constructor(readonly html: string) {}
}
export const raw = (html: string) => new Raw(html);

export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += (Array.isArray(v) ? v.map((x) => (x instanceof Raw ? x.html : esc(x))).join("") : v instanceof Raw ? v.html : esc(v)) + strings[i + 1]!;
  });
  return new Raw(out);
}

export function layout(title: string, gatewayName: string, body: Raw): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · ${esc(gatewayName)}</title><link rel="stylesheet" href="/static/gateway.css"></head>
<body><header><strong>${esc(gatewayName)}</strong> · agent gateway</header><main>${body.html}</main></body></html>`;
}

export function htmlResponse(status: number, page: string, headers: Record<string, string> = {}): Response {
  return new Response(page, { status, headers: { "Content-Type": "text/html; charset=utf-8", ...headers } });
}

export const STYLESHEET = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
header{background:#1b1f24;color:#fff;padding:.6em 1.2em}
main{max-width:56em;margin:1.5em auto;padding:0 1em}
section{background:#fff;border:1px solid #d8dde3;border-radius:6px;padding:1em 1.2em;margin-bottom:1.2em}
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:0}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.35em .5em;border-bottom:1px solid #eceff2}
label{display:block;margin:.5em 0 .2em}input[type=text],input[type=password]{width:100%;max-width:24em;padding:.4em}
button{padding:.35em .9em;margin-top:.6em;cursor:pointer}
form.inline{display:inline}form.inline button{margin:0}
p.scope{margin:.1em 0 .7em 1.7em;color:#3c434b}
.error{color:#a40e26;font-weight:600}.notice{color:#0a6b2b;font-weight:600}
code.token{display:block;padding:.6em;background:#fff8d6;border:1px solid #e6cf6b;word-break:break-all;font-size:1.05em}
`;
