// Query strings are checked before any route runs: each route names its keys and their kinds; a
// repeated key, an unknown key or a value that does not parse is 400 invalid_query with a message.
import { ProtocolError } from "../protocol/errors.ts";
import { QueryEncodingError, queryPairs } from "../protocol/query-pairs.ts";

type Kind = "token" | "uint" | "mode";

const ROUTES: [RegExp, Record<string, Kind>][] = [
  [/^\/events$/, { after: "token" }],
  [/^\/history$/, { checkpoint: "token", page: "token" }],
  [/^\/history\/attachments\/[^/]+$/, { checkpoint: "token", offset: "uint", length: "uint" }],
  // version and mode are checked by the route itself: the spec gives them their own 400 rules.
  [/^\/feedback\/artifacts\/[^/]+$/, { version: "mode", mode: "mode" }],
  // json or markdown: the route says which are allowed.
  [/^\/session\/export$/, { format: "mode" }],
];

export type ParsedQuery = Record<string, string | number>;

const parsed = new WeakMap<Request, ParsedQuery>();

/** The validated query of a request (set by the edge). */
export function queryOf(request: Request): ParsedQuery {
  return parsed.get(request) ?? {};
}

export function validateQuery(request: Request, url: URL): void {
  const allowed = ROUTES.find(([re]) => re.test(url.pathname))?.[1] ?? {};
  const out: ParsedQuery = {};
  const raw = url.search.length > 1 ? url.search.slice(1) : "";
  let pairs: [string, string][];
  try {
    pairs = queryPairs(raw);
  } catch (error) {
    if (error instanceof QueryEncodingError) throw invalid(error.message);
    throw error;
  }
  for (const [key, value] of pairs) {
    const kind = allowed[key];
    const names = Object.keys(allowed);
    if (!kind) throw invalid(names.length ? `unknown query parameter '${key}' (allowed: ${names.join(", ")})` : `this route takes no query parameters (got '${key}')`);
    if (key in out) throw invalid(`query parameter '${key}' is repeated`);
    if (kind === "uint") {
      if (!/^(0|[1-9][0-9]{0,14})$/.test(value)) throw invalid(`query parameter '${key}' must be a non-negative integer (got '${value.slice(0, 40)}')`);
      out[key] = Number(value);
    } else if (kind === "token") {
      if (value === "") throw invalid(`query parameter '${key}' is empty`);
      out[key] = value;
    } else {
      out[key] = value;
    }
  }
  parsed.set(request, out);
}

function invalid(message: string): ProtocolError {
  return new ProtocolError("invalid_query", undefined, message);
}
