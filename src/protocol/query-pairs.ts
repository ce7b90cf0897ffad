// The key/value pairs of a query string, percent-decoded (`+` is a space), in order and with repeats kept
// so the caller can refuse them. Daemon and gateway routes validate strictly on top of this.
export class QueryEncodingError extends Error {
  constructor() {
    super("the query string is not valid percent-encoding");
    this.name = "QueryEncodingError";
  }
}

/** Throws QueryEncodingError for malformed percent-encoding. Empty pairs (`a=1&&b=2`) are skipped. */
export function queryPairs(raw: string): [key: string, value: string][] {
  const out: [string, string][] = [];
  if (raw === "") return out;
  for (const pair of raw.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    try {
      out.push([decodeURIComponent((eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, " ")), eq < 0 ? "" : decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, " "))]);
    } catch {
      throw new QueryEncodingError();
    }
  }
  return out;
}
