// Strict query strings for the fleet routes: each route names its keys; a repeated key, an unknown key,
// an empty value or a value that does not parse is 400 `{"code":"invalid_query"}` before the route runs.
import { queryPairs } from "../../protocol/query-pairs.ts";
import { invalidQuery } from "./fleet-error.ts";

export type QueryKind = "token" | "uint";

export function parseFleetQuery(url: string, allowed: Record<string, QueryKind>): Record<string, string | number> {
  const q = url.indexOf("?");
  const raw = q < 0 ? "" : url.slice(q + 1).replace(/#.*$/, "");
  const out: Record<string, string | number> = {};
  let pairs: [string, string][];
  try {
    pairs = queryPairs(raw);
  } catch {
    throw invalidQuery();
  }
  // An empty pair (`a=1&&b=2`) is malformed here, as it always was for fleet routes.
  if (raw !== "" && raw.split("&").some((p) => p === "")) throw invalidQuery();
  for (const [key, value] of pairs) {
    const kind = Object.hasOwn(allowed, key) ? allowed[key] : undefined;
    if (!kind || Object.hasOwn(out, key) || value === "" || value.length > 4096) throw invalidQuery();
    if (kind === "uint") {
      // Digits only; a number past 2^53 is still a number (the route decides whether it is in range).
      if (!/^[0-9]{1,30}$/.test(value)) throw invalidQuery();
      out[key] = Number(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}
