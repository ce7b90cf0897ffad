// `web_fetch`: HTTP(S) GET of one URL, shown as readable text. Redirects are followed by hand so every
// hop is checked against `web_fetch_disallow_http` and counted; bodies are read up to a cap; HTML becomes
// text; other non-text types are described, not dumped.
import { Type } from "@sinclair/typebox";
import { formatBytes, isBinary } from "./file-content.ts";
import { defineTool, toolError, type Tool, type ToolResult } from "./tool.ts";
import { decodeBody, describeNetworkError, isLoopbackHost, mediaType, readCapped, shownUrl, webRequestInit, type WebHttpOptions } from "./web-http.ts";
import description from "./web-fetch.txt" with { type: "text" };

export const WEB_FETCH_MAX_BYTES = 5 * 1024 * 1024;
export const WEB_FETCH_MAX_CHARS = 50_000;
export const WEB_FETCH_MAX_REDIRECTS = 10;
export const WEB_FETCH_TIMEOUT_MS = 30_000;

export const WebFetchInput = Type.Object(
  {
    url: Type.String({ minLength: 1, description: "The http:// or https:// URL to fetch." }),
    raw: Type.Optional(Type.Boolean({ description: "Show HTML source instead of readable text (default false)." })),
    offset: Type.Optional(Type.Integer({ minimum: 0, description: "Character of the text to start at, to read past the cap (default 0)." })),
  },
  { additionalProperties: false },
);

export type WebFetchToolOptions = WebHttpOptions;

const HEADERS = {
  "user-agent": "Mozilla/5.0 (compatible; agent-web-fetch/1.0)",
  accept: "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5",
};

const TEXTUAL = /^(text\/|application\/(json|xml|javascript|ecmascript|x-javascript|yaml|x-yaml|toml|x-sh|sql|graphql|ld\+json)$)|\+(json|xml)$/;

/** Why this URL may not be fetched, or undefined. */
function refusal(url: URL, options: WebHttpOptions): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `\`${shownUrl(url.href)}\` is a ${url.protocol.replace(":", "")} URL; web_fetch fetches only http:// and https:// URLs.`;
  }
  if (url.protocol === "http:" && options.web?.web_fetch_disallow_http && !isLoopbackHost(url.hostname)) {
    return (
      `Plain HTTP is blocked by daemon.web.web_fetch_disallow_http (only localhost and loopback addresses may use http://). ` +
      `Try \`${shownUrl(url.href.replace(/^http:/, "https:"))}\` instead.`
    );
  }
  return undefined;
}

function statusAdvice(status: number): string {
  if (status === 401 || status === 403) return "The page needs authentication or refuses this client; web_fetch cannot log in. Try another source.";
  if (status === 404 || status === 410) return "The page does not exist. Check the URL, or search for the current address.";
  if (status === 429) return "The server is rate limiting; wait before retrying, or use another source.";
  if (status >= 500) return "The server failed; retrying later may work.";
  return "Check the URL.";
}

interface Fetched {
  response: Response;
  url: URL;
  redirects: number;
}

async function follow(start: URL, options: WebHttpOptions, signal: AbortSignal): Promise<Fetched | ToolResult> {
  let url = start;
  for (let redirects = 0; ; redirects++) {
    const timeout = AbortSignal.timeout(WEB_FETCH_TIMEOUT_MS);
    let response: Response;
    try {
      response = await fetch(url.href, webRequestInit(url, options, { method: "GET", headers: HEADERS, signal: AbortSignal.any([signal, timeout]) }));
    } catch (error) {
      signal.throwIfAborted();
      if (timeout.aborted) return toolError(`No response from ${url.host} within ${WEB_FETCH_TIMEOUT_MS / 1000} s.`);
      return toolError(describeNetworkError(error, url, options));
    }
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || response.status === 304 || !location) return { response, url, redirects };
    await response.body?.cancel().catch(() => undefined);
    if (redirects >= WEB_FETCH_MAX_REDIRECTS) {
      return toolError(`\`${shownUrl(start.href)}\` redirected more than ${WEB_FETCH_MAX_REDIRECTS} times (last to \`${shownUrl(location)}\`); giving up.`);
    }
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      return toolError(`\`${shownUrl(url.href)}\` redirected to an invalid URL (\`${location.slice(0, 200)}\`).`);
    }
    const refused = refusal(next, options);
    if (refused) return toolError(`\`${shownUrl(url.href)}\` redirected to \`${shownUrl(next.href)}\`. ${refused}`);
    url = next;
  }
}

/** The body as text for the model, or a description when it is not text. */
async function bodyText(bytes: Uint8Array, contentType: string | null, url: URL, raw: boolean): Promise<{ text: string; title?: string } | { described: string }> {
  const type = mediaType(contentType);
  const sniffedHtml = type === "" && /^\s*(<!doctype html|<html)/i.test(new TextDecoder().decode(bytes.subarray(0, 512)));
  if (type === "text/html" || type === "application/xhtml+xml" || sniffedHtml) {
    const html = decodeBody(bytes, contentType);
    if (raw) return { text: html };
    // The HTML converter is loaded on first use: a session that never fetches a page does not pay for it.
    const { htmlTitle, htmlToText } = await import("./html-text.ts");
    return { text: htmlToText(html, url.href), title: htmlTitle(html) };
  }
  if (TEXTUAL.test(type) || (type === "" && !isBinary(bytes))) return { text: decodeBody(bytes, contentType) };
  return {
    described:
      `The response is ${type || "binary data"} (${formatBytes(bytes.length)}${bytes.length >= WEB_FETCH_MAX_BYTES ? " or more" : ""}); ` +
      "web_fetch shows text only, so the content is not shown. To inspect it, download it with the shell (e.g. `curl -o file URL`) " +
      "and use a suitable tool.",
  };
}

export function createWebFetchTool(options: WebFetchToolOptions): Tool<typeof WebFetchInput> {
  return defineTool({
    name: "web_fetch",
    description,
    inputSchema: WebFetchInput,
    async run(input, _ctx, signal) {
      let start: URL;
      try {
        start = new URL(input.url);
      } catch {
        return toolError(`\`${input.url.slice(0, 200)}\` is not a valid URL; give a full address such as https://example.com/page.`);
      }
      const refused = refusal(start, options);
      if (refused) return toolError(refused);
      const fetched = await follow(start, options, signal);
      if (!("response" in fetched)) return fetched;
      const { response, url, redirects } = fetched;
      let download: { bytes: Uint8Array; truncated: boolean };
      try {
        download = await readCapped(response, WEB_FETCH_MAX_BYTES);
      } catch (error) {
        signal.throwIfAborted();
        return toolError(`The response from ${url.host} stopped before its end (${(error as Error).message}); try again.`);
      }
      const { bytes, truncated } = download;
      const contentType = response.headers.get("content-type");
      const head = [`URL: ${shownUrl(url.href)}${redirects > 0 ? ` (after ${redirects} redirect${redirects === 1 ? "" : "s"} from ${shownUrl(start.href)})` : ""}`];
      head.push(`Status: ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`);
      if (contentType) head.push(`Content-Type: ${contentType}`);
      const body = await bodyText(bytes, contentType, url, input.raw ?? false);
      const metadata = { url: url.href, status: response.status, contentType, bytes: bytes.length, truncated };
      if (!response.ok) {
        const excerpt = "text" in body ? body.text.trim().slice(0, 1000) : "";
        return toolError([`HTTP ${response.status} from \`${shownUrl(url.href)}\`. ${statusAdvice(response.status)}`, ...head, ...(excerpt ? ["", excerpt] : [])].join("\n"), metadata);
      }
      if ("described" in body) return { output: [...head, "", body.described].join("\n"), metadata };
      if (body.title) head.push(`Title: ${body.title}`);
      const offset = input.offset ?? 0;
      if (offset > 0 && offset >= body.text.length) {
        return toolError(`offset ${offset} is past the end of the text, which has ${body.text.length} characters.`, metadata);
      }
      const end = Math.min(body.text.length, offset + WEB_FETCH_MAX_CHARS);
      const notes: string[] = [];
      if (truncated) notes.push(`[download stopped at the ${formatBytes(WEB_FETCH_MAX_BYTES)} cap; the text is from the start of the response only]`);
      if (offset > 0 || end < body.text.length) {
        notes.push(
          `[showing characters ${offset}-${end} of ${body.text.length} (at most ${WEB_FETCH_MAX_CHARS} per call)` +
            `${end < body.text.length ? `; call web_fetch with offset=${end} to read on` : ""}]`,
        );
      }
      const text = body.text.slice(offset, end);
      return { output: [...head, "", text === "" ? "(empty)" : text, ...notes].join("\n"), metadata };
    },
  });
}
