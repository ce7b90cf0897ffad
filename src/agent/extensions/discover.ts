// Where extensions live: one directory per extension under `<global config dir>/extensions/` and
// `<project>/.agent/extensions/`. A project extension wins over a global one of the same name (the
// project is the more specific choice, as with skills and config layers); the shadowing is reported.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export type ExtensionOrigin = "global" | "project";

export interface ExtensionCandidate {
  /** The directory's name (the manifest must say the same). */
  name: string;
  origin: ExtensionOrigin;
  dir: string;
}

export interface ExtensionRoot {
  dir: string;
  origin: ExtensionOrigin;
}

/** Extension directories in the roots (later roots win on a name clash), sorted by name. */
export function discoverExtensions(roots: readonly ExtensionRoot[], notes: string[]): ExtensionCandidate[] {
  const found = new Map<string, ExtensionCandidate>();
  for (const root of roots) {
    let names: string[];
    try {
      names = readdirSync(root.dir);
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      if (name.startsWith(".")) continue;
      const dir = join(root.dir, name);
      try {
        if (!statSync(dir).isDirectory()) continue;
      } catch {
        notes.push(`extension ${dir}: cannot be read (a broken link?); skipped`);
        continue;
      }
      const earlier = found.get(name);
      if (earlier) notes.push(`extension ${name}: the ${root.origin} one (${dir}) is used instead of the ${earlier.origin} one (${earlier.dir})`);
      found.set(name, { name, origin: root.origin, dir });
    }
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}
