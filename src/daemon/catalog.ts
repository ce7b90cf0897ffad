// The daemon catalog (GET /daemon-state, feature daemon.catalog.v1): one immutable publication with a
// revision. Collections are sorted by name; credential-shaped text is scrubbed and values under
// secret-named keys are dropped before publication. A republication with identical content keeps the
// revision; a changed one bumps it and journals daemon_catalog_changed.
import type { CatalogPublication } from "../protocol/daemon-responses.ts";
import { isSecretKey, redactText } from "../util/redact.ts";

export type { CatalogPublication };

/** The publication's collections (src/protocol/daemon-responses.ts defines them). */
export type CatalogContent = Omit<CatalogPublication, "version" | "catalog_revision">;

/** Builds the catalog content; must have no side effects (no model selection, server start or tool run). */
export type CatalogSource = () => CatalogContent;

const COLLECTIONS = ["facets", "models", "subagents", "skills", "tools", "mcp_servers", "extensions"] as const;

export class CatalogPublisher {
  private current: CatalogPublication;
  private digest = "";
  private source: CatalogSource | null = null;

  constructor(private readonly onChange: (revision: string) => void) {
    this.current = { version: 1, catalog_revision: "0", ...emptyCatalog() };
  }

  get revision(): string {
    return this.current.catalog_revision;
  }

  get publication(): CatalogPublication {
    return this.current;
  }

  /** Publishes what the source describes now; the first publication is revision 1 and emits no event. */
  publish(source: CatalogSource = this.source ?? emptyCatalog): boolean {
    this.source = source;
    const content = sanitizeCatalog(source());
    const text = JSON.stringify(content);
    const digest = new Bun.CryptoHasher("sha256").update(text).digest("hex");
    if (digest === this.digest) return false;
    const first = this.digest === "";
    this.digest = digest;
    const revision = String(BigInt(this.current.catalog_revision) + 1n);
    this.current = Object.freeze({ version: 1, catalog_revision: revision, ...content }) as CatalogPublication;
    if (!first) this.onChange(revision);
    return !first;
  }
}

export function emptyCatalog(): CatalogContent {
  return { facets: [], models: [], subagents: [], skills: [], tools: [], mcp_servers: [], extensions: [] };
}

/** Sorted collections with scrubbed text; MCP servers keep only name, transport kind, state, tool count and tool ids. */
export function sanitizeCatalog(content: CatalogContent): CatalogContent {
  const out = emptyCatalog();
  for (const key of COLLECTIONS) {
    const list = (content[key] ?? []) as Record<string, unknown>[];
    const clean = list.map((entry) => scrub(key === "mcp_servers" ? pickServer(entry) : entry) as Record<string, unknown>);
    clean.sort((a, b) => String(a.name ?? "").localeCompare(String(b.name ?? "")));
    (out as unknown as Record<string, unknown[]>)[key] = clean;
  }
  return out;
}

function pickServer(entry: Record<string, unknown>): Record<string, unknown> {
  const tools = Array.isArray(entry.tools) ? entry.tools.map(String).sort() : [];
  return { name: entry.name, transport: entry.transport, state: entry.state, tool_count: Number(entry.tool_count ?? tools.length), tools };
}

function scrub(value: unknown): unknown {
  if (typeof value === "string") return redactText(value);
  if (Array.isArray(value)) return value.map(scrub);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      // A secret-named field with a value is rejected outright; its name alone says nothing secret.
      if (isSecretKey(k) && typeof v === "string") continue;
      out[k] = scrub(v);
    }
    return out;
  }
  return value;
}
