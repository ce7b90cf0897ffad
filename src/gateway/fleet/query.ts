// Strict query strings for the fleet routes: each route names its keys; a repeated key, an unknown key,
// an empty value or a value that does not parse is 400 `{"code":"invalid_query"}` before the route runs.
import { invalidQuery } from "./fleet-error.ts";

export type QueryKind = "token" | "uint";

export function parseFleetQuery(url: string, allowed: Record<string, QueryKind>): Record<string, string | number> {
  const q = url.indexOf("?");
  const raw = q < 0 ? "" : url.slice(q + 1).replace(/#.*$/, "");
  const out: Record<string, string | number> = {};
  if (raw === "") return out;
  for (const pair of raw.split("&")) {
    const eq = pair.indexOf("=");
    let key: string;
    let value: string;
    try {
      key = decodeURIComponent((eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, " "));
      value = eq < 0 ? "" : decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, " "));
    } catch {
      throw invalidQuery();
    }
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
