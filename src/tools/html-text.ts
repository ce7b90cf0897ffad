// HTML to text a model reads well: markdown-like headings, list bullets, links with absolute URLs,
// aligned tables; scripts, styles and other invisible parts dropped. html-to-text (htmlparser2 underneath)
// does the parsing and layout; here we only say how each element should look.
import { convert, type FormatCallback, type HtmlToTextOptions } from "html-to-text";

/** `#`..`######` before the heading text, so the page's structure stays visible. */
function heading(level: number): FormatCallback {
  return (elem, walk, builder) => {
    builder.openBlock({ leadingLineBreaks: 2 });
    builder.addLiteral(`${"#".repeat(level)} `);
    walk(elem.children, builder);
    builder.closeBlock({ trailingLineBreaks: 1 });
  };
}

const INVISIBLE = ["script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed", "img", "picture", "video", "audio", "head", "button", "select", "input", "textarea"];

function options(baseUrl: string): HtmlToTextOptions {
  const absolute = (href: string) => {
    try {
      return new URL(href, baseUrl).href;
    } catch {
      return href;
    }
  };
  return {
    wordwrap: false,
    formatters: Object.fromEntries([1, 2, 3, 4, 5, 6].map((n) => [`h${n}`, heading(n)])),
    selectors: [
      ...[1, 2, 3, 4, 5, 6].map((n) => ({ selector: `h${n}`, format: `h${n}` })),
      ...INVISIBLE.map((selector) => ({ selector, format: "skip" })),
      {
        selector: "a",
        options: { linkBrackets: ["(", ")"] as [string, string], hideLinkHrefIfSameAsText: true, ignoreHref: false, noAnchorUrl: true, pathRewrite: absolute },
      },
      { selector: "ul", options: { itemPrefix: " - " } },
      { selector: "table", format: "dataTable", options: { uppercaseHeaderCells: false } },
      { selector: "pre", format: "pre" },
      { selector: "hr", format: "horizontalLine", options: { length: 20 } },
    ],
  };
}

/** The page title from `<title>`, when it has one. */
export function htmlTitle(html: string): string | undefined {
  const match = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  if (!match) return undefined;
  const title = convert(match[1]!, { wordwrap: false }).replace(/\s+/g, " ").trim();
  return title === "" ? undefined : title;
}

/** Readable text of an HTML document; relative links are resolved against `baseUrl`. */
export function htmlToText(html: string, baseUrl: string): string {
  return convert(html, options(baseUrl))
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
