// The model a session talks to is the user's choice, not a cloned repository's: the model receives every
// prompt and every file the tools read, and chooses the tool calls. So a project that adds a provider,
// points one of the user's elsewhere or gives it credentials of its own, sets a model's provider or wire
// name, or sets the default tiers waits for trust, whatever the auth; meanwhile the session uses the
// user's own providers, models and defaults. The one
// exception is the offline `test` provider the project adds itself: it plays a local script and sends
// nothing anywhere (its scripted tool calls meet the same permission rules as any model's).
import { catalogProvider } from "../../providers/catalog.ts";
import { at, type Doc, isMap, text } from "../doc.ts";
import type { TrustInput, TrustItem } from "./items.ts";

/** The catalog model of the offline provider (src/providers/catalog.ts). */
const OFFLINE_MODEL = "test-scripted";

function isOfflineKind(entry: unknown): boolean {
  const kind = at(entry, "kind");
  return isMap(kind) && kind.type === "catalog" && kind.name === "test";
}

function globalEntry(input: TrustInput, block: string, name: string): Doc | undefined {
  const entry = at(input.global, block, name);
  return isMap(entry) ? entry : undefined;
}

/** A provider that contacts no address: the offline test provider, the project's own or the user's. */
function offlineProvider(input: TrustInput, name: string): boolean {
  const own = at(input.projectRaw, "providers", name);
  const base = globalEntry(input, "providers", name);
  if (base) return isOfflineKind({ ...base, ...(isMap(own) ? own : {}) });
  return isOfflineKind(own);
}

/** The provider a model name runs on, as the layers write it (catalog models are `<provider>/<id>`). */
function providerOfModel(input: TrustInput, model: string): string | undefined {
  const own = at(input.projectRaw, "models", model, "provider");
  if (typeof own === "string") return own;
  const base = at(input.global, "models", model, "provider");
  if (typeof base === "string") return base;
  const slash = model.indexOf("/");
  return slash > 0 ? model.slice(0, slash) : undefined;
}

function offlineModel(input: TrustInput, spec: unknown): boolean {
  if (typeof spec !== "string") return false;
  const model = spec.replace(/\([^)]*\)$/, "");
  const provider = providerOfModel(input, model);
  return provider === undefined ? model === OFFLINE_MODEL : offlineProvider(input, provider);
}

/** How a provider the project points elsewhere would authenticate with the user's credentials, if it would. */
function userCredential(raw: Doc, base: Doc | undefined): string | null {
  const reasons: string[] = [];
  const auth = "auth" in raw ? raw.auth : base?.auth;
  if (isMap(auth) && auth.type !== "no_auth") {
    const ownKey = "auth" in raw && auth.type === "static_key" && typeof auth.key === "string" && !auth.key.includes("${");
    if (!ownKey) {
      if (auth.type === "static_key") reasons.push(typeof at(raw, "auth", "key") === "string" ? `the key ${String(at(raw, "auth", "key"))}` : "the key of your global config");
      else reasons.push(`your ${text(auth.type)} login profile '${text(auth.profile)}'`);
    }
  }
  const headers = new Set<string>();
  for (const [k, v] of Object.entries(isMap(raw.headers) ? raw.headers : {})) if (typeof v === "string" && v.includes("${")) headers.add(k);
  for (const k of Object.keys(isMap(base?.headers) ? base.headers : {})) if (!isMap(raw.headers) || !(k in raw.headers)) headers.add(k);
  if (headers.size) reasons.push(`headers ${[...headers].sort().join(", ")}`);
  if (typeof raw.url === "string" && raw.url.includes("${")) reasons.push("values of your environment in the address");
  return reasons.length ? reasons.join(" and ") : null;
}

function addressOf(raw: Doc, base: Doc | undefined): string {
  // `url: null` in the project erases the user's: the kind's address applies.
  const url = "url" in raw ? raw.url : base?.url;
  if (typeof url === "string") return url;
  const kind = "kind" in raw ? raw.kind : base?.kind;
  const name = at(kind, "name");
  const catalog = typeof name === "string" ? catalogProvider(name) : undefined;
  return catalog?.url ?? `the address of ${typeof name === "string" ? `catalog provider '${name}'` : "its kind"}`;
}

/**
 * Which credential of the project's own a provider of the user's would use: headers it sets (a literal
 * `x-api-key` works as well as a key), a key, or another auth type or login profile. Traffic under an
 * account of the project's is readable by it wherever the provider logs requests. A device login's
 * `client_id` or `scope` changes no account.
 */
function projectCredential(raw: Doc, base: Doc): string | null {
  const reasons: string[] = [];
  if (isMap(raw.headers) && Object.keys(raw.headers).length > 0) reasons.push(`headers ${Object.keys(raw.headers).sort().join(", ")}`);
  const auth = raw.auth;
  if (auth === null) reasons.push("no auth");
  else if (isMap(auth)) {
    const mine = isMap(base.auth) ? base.auth : {};
    if (auth.type !== undefined && auth.type !== mine.type) reasons.push(`auth ${text(auth.type)}`);
    else if ("key" in auth) reasons.push("key");
    else if ("profile" in auth && auth.profile !== mine.profile) reasons.push(`login profile '${text(auth.profile)}'`);
  }
  return reasons.length ? reasons.join(" and ") : null;
}

/**
 * A provider the project adds (any but the offline one), or one of the user's it re-points (`url`, `kind`)
 * or gives credentials of the project's own (`headers`, `auth`). An added provider is left out whole; the
 * user's keeps their address, kind, headers and auth.
 */
function providers(input: TrustInput, items: TrustItem[]): void {
  const block = at(input.projectRaw, "providers");
  if (!isMap(block)) return;
  for (const [name, raw] of Object.entries(block)) {
    if (!isMap(raw)) continue;
    const base = globalEntry(input, "providers", name);
    const added = base === undefined;
    const repointed = !added && ("url" in raw || "kind" in raw);
    const theirs = added ? null : projectCredential(raw, base);
    if (added ? isOfflineKind(raw) : !repointed && !theirs) continue;
    const sends = userCredential(raw, base);
    const address = addressOf(raw, base);
    const shown =
      added || repointed
        ? sends
          ? `provider '${name}' sends ${sends} to ${address}`
          : `provider '${name}' receives your conversation at ${address}`
        : `provider '${name}' at ${address} uses the project's ${theirs} (your conversation under an account of its choosing)`;
    const keys = ["url", "kind", ...(theirs ? ["headers", "auth"] : [])].filter((k) => k in raw);
    items.push({
      kind: "provider",
      key: `providers.${name}`,
      shown,
      pin: { url: raw.url ?? null, kind: raw.kind ?? null, auth: "auth" in raw ? raw.auth : (at(base, "auth", "type") ?? null), headers: raw.headers ?? null },
      files: [],
      remove: added ? [{ layer: "project", path: ["providers", name] }] : keys.map((k) => ({ layer: "project" as const, path: ["providers", name, k] })),
    });
  }
}

/** A project model entry that says which provider it runs on or under which wire name; left out whole. */
function models(input: TrustInput, items: TrustItem[]): void {
  const block = at(input.projectRaw, "models");
  if (!isMap(block)) return;
  for (const [name, raw] of Object.entries(block)) {
    if (!isMap(raw) || (!("provider" in raw) && !("provider_name" in raw))) continue;
    const provider = providerOfModel(input, name);
    if (provider !== undefined && offlineProvider(input, provider)) continue;
    const wire = typeof raw.provider_name === "string" ? ` as '${raw.provider_name}'` : "";
    items.push({
      kind: "model",
      key: `models.${name}`,
      shown: `model '${name}' on provider '${provider ?? "?"}'${wire}`,
      pin: raw,
      files: [],
      remove: [{ layer: "project", path: ["models", name] }],
    });
  }
}

/** The project's default tiers (unless each names an offline model); left out whole, so the user's apply. */
function defaults(input: TrustInput, items: TrustItem[]): void {
  const raw = at(input.projectRaw, "defaults");
  if (!isMap(raw) || Object.keys(raw).length === 0) return;
  if (Object.values(raw).every((spec) => offlineModel(input, spec))) return;
  items.push({
    kind: "defaults",
    key: "defaults",
    shown: `default models ${Object.entries(raw).map(([tier, spec]) => `${tier}: ${spec === null ? "(unset)" : text(spec)}`).join(", ")}`,
    pin: raw,
    files: [],
    remove: [{ layer: "project", path: ["defaults"] }],
  });
}

/** Every item that would let the project choose the model; in the order providers, models, defaults. */
export function modelChoice(input: TrustInput, items: TrustItem[]): void {
  providers(input, items);
  models(input, items);
  defaults(input, items);
}
