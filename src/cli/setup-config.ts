// What `agent setup` writes: the global config text (with comments saying where each value came from)
// and, when the user pastes a key, the key file under the data root. Kept apart from the prompts so
// the file's content is tested directly.
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { CatalogProvider } from "../providers/catalog.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";

export type KeySource = { type: "env"; variable: string } | { type: "file"; path: string } | { type: "none" };

export interface SetupChoice {
  entry: CatalogProvider;
  key: KeySource;
  /** Written only when it differs from the catalog's address (a base-URL variable, a local port). */
  url: string | null;
  defaults: { full: string; mini?: string; nano?: string };
  /** Models a local server listed (the catalog has none for it): id and window. */
  localModels: { id: string; context_window: number }[];
  /** What the connection test found, for the file's comment. */
  tested: string;
  date: string;
}

/** `<data root>/keys/<provider>.key`, 0600 in a 0700 directory. */
export function saveKeyFile(dataRoot: string, provider: string, key: string): string {
  const dir = join(dataRoot, "keys");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const path = join(dir, `${provider}.key`);
  writeFileAtomic(path, `${key.trim()}\n`, 0o600);
  return path;
}

const yamlString = (s: string) => JSON.stringify(s);
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function setupConfigText(c: SetupChoice): string {
  const name = c.entry.name;
  const lines: string[] = [
    `# Written by \`agent setup\` on ${c.date}. Edit freely; \`agent setup\` again replaces it (keeping a .bak).`,
    `# Providers and models: docs/providers.md; every key: \`agent print config-schema\`.`,
    "version: 3",
  ];
  if (c.key.type === "file") {
    lines.push(
      "# The key is read from a file only you can read, by a command run at each start; that needs",
      "# command substitution, which only this global file can turn on (a project config never runs commands).",
      "# It holds for this whole file: every $(...) in it runs. Prefer a key variable (${VAR}) to turn it off.",
      "config_command_substitution: true",
    );
  }
  lines.push("", `# ${c.entry.title}: ${c.entry.summary}.`, "providers:", `  ${name}:`, `    kind: { type: catalog, name: ${name} }`);
  if (c.url) lines.push(`    url: ${yamlString(c.url)}`);
  if (c.key.type === "env") {
    lines.push(`    # The key is read from ${c.key.variable} at each start; it is not stored here.`, `    auth: { type: static_key, key: "\${${c.key.variable}}" }`);
  } else if (c.key.type === "file") {
    lines.push(`    # The key is in ${c.key.path} (mode 0600).`, `    auth: { type: static_key, key: ${yamlString(`$(cat ${shellQuote(c.key.path)})`)} }`);
  } else {
    lines.push("    auth: { type: no_auth }");
  }
  lines.push(`# Connection test: ${c.tested}.`);
  if (c.localModels.length > 0) {
    lines.push("", "# Models the server listed; context_window is what it reported, or a guess to correct.", "models:");
    for (const m of c.localModels) lines.push(`  ${yamlString(`${name}/${m.id}`)}: { provider: ${name}, provider_name: ${yamlString(m.id)}, class: full, context_window: ${m.context_window} }`);
  }
  lines.push("", "# Default model per size class: full for the conversation, mini and nano for smaller jobs.", "defaults:");
  lines.push(`  full: ${yamlString(c.defaults.full)}`);
  if (c.defaults.mini) lines.push(`  mini: ${yamlString(c.defaults.mini)}`);
  if (c.defaults.nano) lines.push(`  nano: ${yamlString(c.defaults.nano)}`);
  return `${lines.join("\n")}\n`;
}
