// web_fetch against local servers: a plain and a TLS Bun.serve site, and a forwarding proxy (absolute-form
// GET and CONNECT) that records what went through it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer, connect, type Server as NetServer, type Socket } from "node:net";
import { runTool } from "../../src/tools/tool.ts";
import { createWebFetchTool, type WebFetchToolOptions } from "../../src/tools/web-fetch.ts";
import { isLoopbackHost } from "../../src/tools/web-http.ts";
import { createTestPki, type TestPki } from "../fakes/test-ca.ts";
import { call, makeContext, makeProject } from "./helpers.ts";

const PAGE = `<!doctype html><html><head><title>Fetch &amp; Test</title><style>body{color:red}</style>
<script>window.secretScript = 1</script></head><body>
<h1>Main heading</h1><p>Intro with a <a href="/docs/guide">relative link</a>.</p>
<h2>Steps</h2><ul><li>first item</li><li>second item</li></ul>
<table><tr><th>name</th><th>value</th></tr><tr><td>alpha</td><td>1</td></tr></table>
</body></html>`;

let pki: TestPki;
let site: ReturnType<typeof Bun.serve>;
let tlsSite: ReturnType<typeof Bun.serve>;
let proxy: { server: NetServer; url: string; seen: string[] };
const ctx = makeContext(makeProject());

function route(req: Request): Response | Promise<Response> {
  const url = new URL(req.url);
  switch (url.pathname) {
    case "/page.html":
      return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
    case "/hop":
      return Response.redirect(`${url.origin}/page.html`, 302);
    case "/loop":
      return new Response(null, { status: 302, headers: { location: "/loop" } });
    case "/to-plain-http":
      return new Response(null, { status: 301, headers: { location: "http://downgrade.example/page" } });
    case "/data.json":
      return Response.json({ ok: true, items: [1, 2] });
    case "/latin1":
      return new Response(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), { headers: { "content-type": "text/plain; charset=iso-8859-1" } });
    case "/report.pdf":
      return new Response(new Uint8Array([0x25, 0x50, 0x44, 0x46, 0, 1, 2, 3]), { headers: { "content-type": "application/pdf" } });
    case "/long.txt":
      return new Response("x".repeat(120_000), { headers: { "content-type": "text/plain" } });
    case "/huge.txt":
      return new Response("y".repeat(6 * 1024 * 1024), { headers: { "content-type": "text/plain" } });
    case "/gone":
      return new Response("<p>No such page here</p>", { status: 404, headers: { "content-type": "text/html" } });
    case "/cut-off":
      return new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("partial ".repeat(10_000)));
          },
          async pull(controller) {
            await Bun.sleep(50);
            controller.error(new Error("upstream died"));
          },
        }),
        { headers: { "content-type": "text/plain" } },
      );
    case "/stall":
      return new Promise<Response>(() => {});
    default:
      return new Response("unexpected", { status: 500 });
  }
}

/** A forwarding proxy: CONNECT tunnels for https, absolute-form requests passed through for http. */
function startProxy(): Promise<{ server: NetServer; url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((client: Socket) => {
    let buffered = Buffer.alloc(0);
    client.on("error", () => {});
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const headEnd = buffered.indexOf("\r\n\r\n");
      if (headEnd < 0) return;
      client.off("data", onData);
      const [method, target] = buffered.subarray(0, buffered.indexOf("\r\n")).toString().split(" ") as [string, string];
      seen.push(`${method} ${target}`);
      const [host, port, first] =
        method === "CONNECT" ? [target.split(":")[0]!, Number(target.split(":")[1]), buffered.subarray(headEnd + 4)] : [new URL(target).hostname, Number(new URL(target).port), buffered];
      const upstream = connect(port, host, () => {
        if (method === "CONNECT") client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.write(first);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on("error", () => client.destroy());
    };
    client.on("data", onData);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, seen, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })));
}

beforeAll(async () => {
  pki = await createTestPki();
  site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: route, error: () => new Response("error", { status: 500 }) });
  tlsSite = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: route, tls: { cert: pki.serverCertPem, key: pki.serverKeyPem }, error: () => new Response("error", { status: 500 }) });
  proxy = await startProxy();
});
afterAll(() => {
  site.stop(true);
  tlsSite.stop(true);
  proxy.server.close();
});

const base = () => `http://127.0.0.1:${site.port}`;
const tlsBase = () => `https://127.0.0.1:${tlsSite.port}`;
const fetchWith = (url: string, options: WebFetchToolOptions = {}, extra: Record<string, unknown> = {}) => call(createWebFetchTool(options), { url, ...extra }, ctx);

describe("web_fetch", () => {
  test("HTML becomes readable text: title, headings, list, absolute links, table; scripts and styles dropped", async () => {
    const r = await fetchWith(`${base()}/page.html`);
    expect(r.isError).toBeUndefined();
    expect(r.output).toStartWith(`URL: ${base()}/page.html\nStatus: 200 OK\nContent-Type: text/html; charset=utf-8\nTitle: Fetch & Test\n\n# Main heading`);
    expect(r.output).toContain(`Intro with a relative link (${base()}/docs/guide).`);
    expect(r.output).toContain("## Steps\n - first item\n - second item");
    expect(r.output).toMatch(/name +value\nalpha +1/);
    expect(r.output).not.toContain("secretScript");
    expect(r.output).not.toContain("color:red");
    const raw = await fetchWith(`${base()}/page.html`, {}, { raw: true });
    expect(raw.output).toContain("<script>window.secretScript = 1</script>");
  });

  test("redirects are followed and reported; loops stop at the cap", async () => {
    const r = await fetchWith(`${base()}/hop`);
    expect(r.output).toStartWith(`URL: ${base()}/page.html (after 1 redirect from ${base()}/hop)`);
    const loop = await fetchWith(`${base()}/loop`);
    expect(loop.isError).toBe(true);
    expect(loop.output).toContain("redirected more than 10 times");
  });

  test("text types shown as they are, charsets honoured, other types described", async () => {
    expect((await fetchWith(`${base()}/data.json`)).output).toEndWith('\n\n{"ok":true,"items":[1,2]}');
    expect((await fetchWith(`${base()}/latin1`)).output).toEndWith("\n\ncafé");
    const pdf = await fetchWith(`${base()}/report.pdf`);
    expect(pdf.isError).toBeUndefined();
    expect(pdf.output).toContain("The response is application/pdf (8 bytes); web_fetch shows text only, so the content is not shown.");
    expect(pdf.output).not.toContain("%PDF");
  });

  test("the text cap and the download cap are stated, and offset reads on", async () => {
    const first = await fetchWith(`${base()}/long.txt`);
    expect(first.output).toEndWith("[showing characters 0-50000 of 120000 (at most 50000 per call); call web_fetch with offset=50000 to read on]");
    const last = await fetchWith(`${base()}/long.txt`, {}, { offset: 100_000 });
    expect(last.output).toEndWith(`\n\n${"x".repeat(20_000)}\n[showing characters 100000-120000 of 120000 (at most 50000 per call)]`);
    const huge = await fetchWith(`${base()}/huge.txt`);
    expect(huge.output).toContain("[download stopped at the 5.0 MB cap; the text is from the start of the response only]");
    expect(huge.metadata).toMatchObject({ bytes: 5 * 1024 * 1024, truncated: true });
  });

  test("HTTP errors and network failures say what happened and what to do", async () => {
    const missing = await fetchWith(`${base()}/gone`);
    expect(missing.isError).toBe(true);
    expect(missing.output).toStartWith(`HTTP 404 from \`${base()}/gone\`. The page does not exist.`);
    expect(missing.output).toContain("No such page here");
    const refused = await fetchWith("http://127.0.0.1:1/");
    expect(refused.output).toBe("Connection refused by 127.0.0.1:1: nothing is listening there. Check the host and port.");
    expect((await fetchWith("ftp://example.com/file")).output).toContain("fetches only http:// and https:// URLs");
    expect((await fetchWith("not a url")).output).toContain("is not a valid URL");
  });

  test("a body cut off mid-way is an error that suggests trying again", async () => {
    const r = await fetchWith(`${base()}/cut-off`);
    expect(r.isError).toBe(true);
    expect(r.output).toStartWith(`The response from 127.0.0.1:${site.port} stopped before its end (`);
  });

  test("web_fetch_disallow_http blocks plain HTTP except loopback, also on redirects", async () => {
    const strict = { web: { web_fetch_disallow_http: true } };
    const blocked = await fetchWith("http://docs.example/page", strict);
    expect(blocked.isError).toBe(true);
    expect(blocked.output).toBe(
      "Plain HTTP is blocked by daemon.web.web_fetch_disallow_http (only localhost and loopback addresses may use http://). Try `https://docs.example/page` instead.",
    );
    expect((await fetchWith(`${base()}/page.html`, strict)).isError).toBeUndefined();
    const downgrade = await fetchWith(`${base()}/to-plain-http`, strict);
    expect(downgrade.output).toStartWith(`\`${base()}/to-plain-http\` redirected to \`http://downgrade.example/page\`. Plain HTTP is blocked`);
    expect(["localhost", "api.localhost", "127.0.0.1", "127.8.9.10", "[::1]"].every(isLoopbackHost)).toBe(true);
    expect(["localhost.example", "128.0.0.1", "10.0.0.1", "example.com", "[::2]"].some(isLoopbackHost)).toBe(false);
  });

  test("daemon.tls.trust_store: an HTTPS site signed by a private CA is refused until that CA is trusted", async () => {
    const untrusted = await fetchWith(`${tlsBase()}/page.html`);
    expect(untrusted.isError).toBe(true);
    expect(untrusted.output).toContain(`The TLS certificate of 127.0.0.1:${tlsSite.port} is not trusted`);
    expect(untrusted.output).toContain("daemon.tls.trust_store");
    const trusted = await fetchWith(`${tlsBase()}/page.html`, { trustStore: { certificates: [pki.caPem] } });
    expect(trusted.output).toContain("# Main heading");
  });

  test("http_proxy carries plain HTTP and https_proxy tunnels HTTPS", async () => {
    proxy.seen.length = 0;
    const web = { http_proxy: proxy.url, https_proxy: proxy.url };
    const plain = await fetchWith(`${base()}/data.json`, { web });
    expect(plain.output).toEndWith('{"ok":true,"items":[1,2]}');
    const secure = await fetchWith(`${tlsBase()}/data.json`, { web, trustStore: { certificates: [pki.caPem] } });
    expect(secure.output).toEndWith('{"ok":true,"items":[1,2]}');
    expect(proxy.seen).toEqual([`GET ${base()}/data.json`, `CONNECT 127.0.0.1:${tlsSite.port}`]);
  });

  test("a proxy's credentials never appear in an error", async () => {
    const r = await fetchWith(`${base()}/page.html`, { web: { http_proxy: "http://agent:hunter2pass@127.0.0.1:1" } });
    expect(r.isError).toBe(true);
    expect(r.output).toContain("through the proxy http://127.0.0.1:1/ (daemon.web.http_proxy)");
    expect(r.output).not.toContain("hunter2pass");
  });

  test("cancelling stops a request that is waiting for a response", async () => {
    const controller = new AbortController();
    const pending = runTool(createWebFetchTool({}), { url: `${base()}/stall` }, ctx, controller.signal);
    controller.abort();
    const r = await pending;
    expect(r.isError).toBe(true);
    expect(r.output).toBe("`web_fetch` was cancelled.");
  });
});
