// `agent setup`: pick a provider, give its key (an environment variable, or pasted and kept in a 0600
// file under the data root), test the connection (its model list), pick the default models, and write
// the global config with comments. Also offered by `agent` when nothing is configured.
import { copyFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { dataRoot, findConfigIn, globalConfigDir } from "../config/files.ts";
import { CATALOG_PROVIDERS, type CatalogProvider, catalogDefaults } from "../providers/catalog.ts";
import { systemClock } from "../util/clock.ts";
import { detectLocalServer, LOCAL_DEFAULT_CONTEXT_WINDOW } from "../providers/local-detect.ts";
import { catalogModelKey, modelCatalog } from "../providers/model-catalog.ts";
import { listProviderModels, type DiscoveredModel } from "../providers/models-list.ts";
import { resolveProvider } from "../providers/resolve.ts";
import type { ProviderSettings } from "../providers/settings.ts";
import { redactText } from "../util/redact.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { EXIT, type Io, type ParsedArgs, UsageError } from "../util/cli-command.ts";
import { type KeySource, saveKeyFile, setupConfigText } from "./setup-config.ts";

type Clack = typeof import("@clack/prompts");

class Cancelled extends Error {}

/** The providers offered: those a key or a local server makes usable (not device logins, not the demo). */
const offered = (): CatalogProvider[] => CATALOG_PROVIDERS.filter((e) => e.protocol !== "test" && e.auth !== "device_a");

async function testConnection(entry: CatalogProvider, url: string | null, key: string | null): Promise<{ ok: true; models: DiscoveredModel[] } | { ok: false; message: string }> {
  const settings: ProviderSettings = {
    kind: { type: "catalog", name: entry.name },
    ...(url ? { url } : {}),
    auth: key ? { type: "static_key", key } : { type: "no_auth" },
  };
  try {
    const provider = resolveProvider(entry.name, settings, catalogDefaults(settings));
    const abort = AbortSignal.timeout(15_000);
    return { ok: true, models: await listProviderModels(provider, { clock: systemClock }, abort) };
  } catch (error) {
    return { ok: false, message: redactText((error as Error).message, key ? [key] : []) };
  }
}

export async function setupRun(_args: ParsedArgs, io: Io): Promise<number> {
  if (process.stdin.isTTY !== true || process.stdout.isTTY !== true)
    throw new UsageError("agent setup asks questions: run it on a terminal (or write the config yourself: docs/providers.md)");
  const p = await import("@clack/prompts");
  try {
    return await interactive(p, io);
  } catch (error) {
    if (error instanceof Cancelled) {
      p.cancel("Setup cancelled; nothing was written.");
      return EXIT.failure;
    }
    throw error;
  }
}

function must<T>(p: Clack, value: T): Exclude<T, symbol> {
  if (p.isCancel(value)) throw new Cancelled();
  return value as Exclude<T, symbol>;
}

async function interactive(p: Clack, io: Io): Promise<number> {
  const env = io.env;
  const root = dataRoot(env);
  const configDir = globalConfigDir(env);
  p.intro("agent setup");

  const existing = findConfigIn(configDir);
  const current = existing.kind === "one" ? [existing.path] : existing.kind === "conflict" ? existing.paths : [];
  if (current.length > 0) {
    const replace = must(p, await p.confirm({ message: `${current.join(" and ")} exists. Replace it? (the old file is kept as .bak)`, initialValue: false }));
    if (!replace) throw new Cancelled();
  }

  const local = await detectLocalServer(env, { budgetMs: 300 });
  const providers = offered();
  const hint = (e: CatalogProvider) => {
    const set = e.env.find((v) => env[v]?.trim());
    if (set) return `${set} is set`;
    if (local?.name === e.name) return `running at ${local.url}`;
    return e.auth === "none" ? "local server, no key" : e.env[0] ? `key: ${e.env[0]}` : "";
  };
  const initial = providers.find((e) => e.env.some((v) => env[v]?.trim())) ?? (local ? providers.find((e) => e.name === local.name) : undefined) ?? providers[0]!;
  const name = must(
    p,
    await p.select({
      message: "Which provider?",
      options: providers.map((e) => ({ value: e.name, label: e.title, hint: hint(e) })),
      initialValue: initial.name,
      maxItems: 12,
    }),
  );
  const entry = providers.find((e) => e.name === name)!;

  // Where it answers: the catalog address unless a base-URL variable moves it, a resource needs one, or a local server listens elsewhere.
  const fromVar = entry.baseUrlEnv ? env[entry.baseUrlEnv]?.trim() : undefined;
  let url: string | null = fromVar ? fromVar.replace(/\/+$/, "") : null;
  if (entry.url === null || entry.auth === "none") {
    const suggested = url ?? (local?.name === entry.name ? local.url : entry.url) ?? "";
    const given = must(
      p,
      await p.text({
        message: entry.url === null ? `Address of your ${entry.title} resource` : `Address of the ${entry.title} server`,
        placeholder: suggested || "https://...",
        initialValue: suggested,
        validate: (v) => (/^https?:\/\/\S+$/.test((v ?? "").trim()) ? undefined : "an http:// or https:// address"),
      }),
    ).trim().replace(/\/+$/, "");
    url = given === entry.url ? null : given;
  }

  let key: KeySource = { type: "none" };
  let keyValue: string | null = null;
  let pasted = false;
  if (entry.auth === "key") {
    const setVar = entry.env.find((v) => env[v]?.trim());
    const how = must(
      p,
      await p.select({
        message: "How should agent get the key?",
        options: [
          ...(setVar ? [{ value: "set", label: `Read ${setVar} at each start`, hint: "already set in this shell" }] : []),
          { value: "env", label: "Read an environment variable at each start", hint: "you export it yourself" },
          // Said before it is chosen: reading the file needs $(...) in the config, which is one switch for the whole global file.
          { value: "file", label: "Paste it now; keep it in a file only you can read", hint: `${join(root, "keys")}/, mode 0600; turns on $(command) substitution for your whole global config` },
        ],
        initialValue: setVar ? "set" : "file",
      }),
    );
    if (how === "set") {
      key = { type: "env", variable: setVar! };
      keyValue = env[setVar!]!.trim();
    } else if (how === "env") {
      const variable = must(
        p,
        await p.text({ message: "Variable name", initialValue: entry.env[0] ?? "", validate: (v) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(v ?? "") ? undefined : "letters, digits and _") }),
      );
      key = { type: "env", variable };
      keyValue = env[variable]?.trim() || null;
    } else {
      pasted = true;
      keyValue = must(p, await p.password({ message: `Paste your ${entry.title} key${entry.keyUrl ? ` (from ${entry.keyUrl})` : ""}`, validate: (v) => ((v ?? "").trim() ? undefined : "the key is empty") })).trim();
    }
  }

  // Connection test: the provider's model list, with the key.
  let tested: string;
  let listed: DiscoveredModel[] = [];
  if (entry.auth === "key" && !keyValue) {
    tested = `not run (${key.type === "env" ? key.variable : "the key"} is not set in this shell)`;
    p.log.warn(`${key.type === "env" ? key.variable : "The key"} is not set here, so the connection was not tested.`);
  } else {
    const spin = p.spinner();
    spin.start(`Testing the connection to ${entry.title}`);
    const result = await testConnection(entry, url, keyValue);
    if (result.ok) {
      listed = result.models;
      tested = `${new Date().toISOString().slice(0, 10)}, ${listed.length} models listed`;
      spin.stop(`Connected: ${entry.title} lists ${listed.length} model${listed.length === 1 ? "" : "s"}.`);
    } else {
      spin.error(`The connection test failed: ${result.message}`);
      const go = must(p, await p.confirm({ message: "Write the config anyway?", initialValue: false }));
      if (!go) throw new Cancelled();
      tested = `failed when written (${result.message.slice(0, 120)})`;
    }
  }

  // Default models: the catalog's for a hosted provider, the server's own list for a local one.
  const catalog = modelCatalog(root).models(entry);
  let defaults: { full: string; mini?: string; nano?: string };
  let localModels: { id: string; context_window: number }[] = [];
  if (catalog.length > 0) {
    const ids = catalog.map((m) => m.provider_name);
    const pick = async (message: string, initialId: string | undefined) =>
      catalogModelKey(entry, entry.name, must(p, await p.select({ message, options: ids.map((id) => ({ value: id, label: id, hint: listed.length && !listed.some((l) => l.id === id) ? "not in the provider's list" : undefined })), initialValue: initialId && ids.includes(initialId) ? initialId : ids[0], maxItems: 10 })));
    const full = await pick("Default model (full: the conversation)", entry.defaults?.full);
    const mini = await pick("Smaller model (mini: summaries, subagents)", entry.defaults?.mini ?? entry.defaults?.full);
    defaults = { full, mini, ...(entry.defaults?.nano ? { nano: catalogModelKey(entry, entry.name, entry.defaults.nano) } : {}) };
  } else {
    if (listed.length === 0) {
      p.log.error(`${entry.title} listed no models, so there is none to choose; load a model in the server and run agent setup again.`);
      throw new Cancelled();
    }
    const id = must(p, await p.select({ message: "Default model", options: listed.map((m) => ({ value: m.id, label: m.id })), maxItems: 10 }));
    localModels = listed.map((m) => ({ id: m.id, context_window: m.context_window ?? LOCAL_DEFAULT_CONTEXT_WINDOW }));
    defaults = { full: `${entry.name}/${id}` };
  }

  if (pasted && keyValue) key = { type: "file", path: saveKeyFile(root, entry.name, keyValue) };
  const target = join(configDir, "config.yaml");
  for (const old of current) {
    if (old === target) copyFileSync(old, `${old}.bak`);
    else renameSync(old, `${old}.bak`);
  }
  writeFileAtomic(target, setupConfigText({ entry, key, url, defaults, localModels, tested, date: new Date().toISOString().slice(0, 10) }), 0o600);
  p.note(
    [
      `config   ${target}`,
      ...(key.type === "file"
        ? [
            `key      ${key.path} (0600)`,
            "note     read with $(cat ...): $(command) substitution is now on",
            "         for your whole global config (config_command_substitution).",
            "         A key variable avoids it: export it, run agent setup again.",
          ]
        : key.type === "env"
          ? [`key      from $${key.variable}`]
          : []),
      `model    ${defaults.full}`,
    ].join("\n"),
    "Written",
  );
  p.outro("Run `agent` to start; `agent models` lists the models; `agent setup` again to change.");
  return EXIT.ok;
}
