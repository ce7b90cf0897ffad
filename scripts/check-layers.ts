// The layer and cycle check of issue 24 (docs/architecture.md, "Folder rules"): every import between
// folders of src/ (and tui/) must follow the allowed-direction table below, and no module may reach
// itself through runtime imports (static or dynamic). Run: `bun scripts/check-layers.ts`; CI runs it
// through test/architecture/layers.test.ts.
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * What each folder may import. A folder name allows the whole folder; a path (`providers/catalog.ts`)
 * allows that file only; a `:type` suffix allows type-only imports (erased at build time).
 * Everything a folder imports from itself is allowed. Bottom to top.
 */
export const ALLOWED: Record<string, readonly string[]> = {
  util: [],
  version: [],
  protocol: ["util"],
  config: ["util", "protocol", "providers/catalog.ts", "providers/model-catalog.ts", "providers/protocols.ts", "providers/resolve.ts", "providers/env-providers.ts", "providers/families/resolve.ts", "permissions/rule-file.ts"],
  providers: ["config", "protocol", "util", "version"],
  sandbox: ["config", "util"],
  tools: ["config", "protocol", "providers", "sandbox", "util"],
  permissions: ["config", "protocol", "providers", "sandbox:type", "tools", "util", "agent:type"],
  telemetry: ["config", "providers:type", "tools:type", "util", "version"],
  mcp: ["config", "telemetry", "tools", "util", "version"],
  platform: ["config", "util", "version"],
  update: ["config", "platform", "util", "version"],
  agent: ["config", "mcp", "permissions", "protocol", "providers", "sandbox", "telemetry", "tools", "util"],
  daemon: ["agent", "config", "platform", "protocol", "providers", "telemetry", "tools", "util", "version"],
  client: ["config", "daemon", "protocol", "util"],
  acp: ["client", "protocol"],
  gateway: ["client", "config", "daemon", "protocol", "providers", "telemetry", "util", "version"],
  tui: ["agent", "client", "config", "daemon", "protocol", "providers:type", "tools", "util"],
  cli: ["acp", "agent", "client", "config", "daemon", "gateway", "mcp", "permissions", "platform", "protocol", "providers", "sandbox", "telemetry", "tools", "tui", "update", "util", "version"],
};

export interface ImportEdge {
  from: string;
  to: string;
  /** false: a type-only import, erased at build time. */
  runtime: boolean;
}

const transpilers = { ts: new Bun.Transpiler({ loader: "ts" }), tsx: new Bun.Transpiler({ loader: "tsx" }) };
// Every import and re-export specifier, type-only ones included (the transpiler drops those).
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** `src/x/...` -> "x", `src/version.ts` -> "version", `tui/...` -> "tui"; undefined outside them. */
export function folderOf(path: string): string | undefined {
  if (path.startsWith("tui/")) return "tui";
  if (!path.startsWith("src/")) return undefined;
  return path.slice(4).split("/")[0]!.replace(/\.tsx?$/, "");
}

/** Every relative import of the project's source files, paths relative to `root`. */
export function importEdges(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of new Glob("{src,tui}/**/*.{ts,tsx}").scanSync(root)) {
    const code = readFileSync(join(root, file), "utf8").replace(/^#!.*/, "");
    const target = (spec: string) => relative(root, resolve(root, dirname(file), spec));
    const runtime = new Set(
      transpilers[file.endsWith(".tsx") ? "tsx" : "ts"]
        .scanImports(code)
        .filter((i) => i.path.startsWith("."))
        .map((i) => target(i.path)),
    );
    const all = new Set<string>(runtime);
    for (const m of code.matchAll(SPECIFIER)) {
      const spec = m[1] ?? m[2]!;
      if (spec.startsWith(".")) all.add(target(spec));
    }
    for (const to of all) edges.push({ from: file, to, runtime: runtime.has(to) });
  }
  return edges;
}

function allowed(fromFolder: string, edge: ImportEdge): boolean {
  const toFolder = folderOf(edge.to);
  if (toFolder === undefined || toFolder === fromFolder) return true;
  const toPath = edge.to.startsWith("src/") ? edge.to.slice(4) : edge.to;
  return (ALLOWED[fromFolder] ?? []).some((rule) => {
    const [name, kind] = rule.split(":");
    if (kind === "type" && edge.runtime) return false;
    return name === toFolder || name === toPath;
  });
}

/** Imports against the table, as "from -> to" lines. */
export function layerViolations(edges: readonly ImportEdge[]): string[] {
  const out: string[] = [];
  for (const edge of edges) {
    const from = folderOf(edge.from);
    if (from === undefined) continue;
    if (!(from in ALLOWED)) out.push(`${edge.from}: folder '${from}' is not in the table of scripts/check-layers.ts`);
    else if (!allowed(from, edge)) out.push(`${edge.from} -> ${edge.to}${edge.runtime ? "" : " (type)"}: ${from}/ may not import ${folderOf(edge.to)}/`);
  }
  return out;
}

/** Runtime import cycles between modules (strongly connected components of more than one file). */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) if (e.runtime) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  // Tarjan's algorithm, iterative so a deep import chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  for (const start of next.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; i: number }[] = [{ node: start, i: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const succ = next.get(top.node) ?? [];
      if (top.i < succ.length) {
        const s = succ[top.i++]!;
        if (!index.has(s)) {
          index.set(s, counter);
          low.set(s, counter++);
          stack.push(s);
          onStack.add(s);
          work.push({ node: s, i: 0 });
        } else if (onStack.has(s)) low.set(top.node, Math.min(low.get(top.node)!, index.get(s)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        let n: string;
        do {
          n = stack.pop()!;
          onStack.delete(n);
          component.push(n);
        } while (n !== top.node);
        if (component.length > 1) cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

/** The table as docs/architecture.md shows it. */
export function tableMarkdown(): string {
  const rows = Object.entries(ALLOWED).map(([from, to]) => `| ${from} | ${to.length === 0 ? "—" : to.join(", ")} |`);
  return ["| folder | may import |", "|---|---|", ...rows].join("\n");
}

if (import.meta.main) {
  const root = join(import.meta.dir, "..");
  const edges = importEdges(root);
  const problems = [...layerViolations(edges), ...importCycles(edges).map((c) => `runtime import cycle: ${c.join(" <-> ")}`)];
  for (const p of problems) console.error(p);
  console.log(problems.length === 0 ? `layers: ${edges.length} imports follow the table, no runtime cycle` : `layers: ${problems.length} problems`);
  process.exit(problems.length === 0 ? 0 : 1);
}
