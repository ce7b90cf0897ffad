// Loads the app config: find the layers, parse, upgrade, substitute, enforce global authority, merge,
// validate against the schema and the semantic rules, resolve models and derived values. Every problem
// is collected in one pass; nothing throws for bad input.
import { lstatSync } from "node:fs";
import { join, resolve } from "node:path";
import { checkValue } from "./check.ts";
import { resolveDefaults, type TierDefaults } from "./defaults.ts";
import { dataRoot, type Env, findConfigIn, findProject, globalConfigDir, type ProjectLocation } from "./files.ts";
import { dropNulls, enforceGlobalAuthority, type LayerName, mergeLayers, type Origins } from "./merge.ts";
import { resolveModels, type ModelTable } from "./models.ts";
import { modelCatalog } from "../providers/model-catalog.ts";
import { type EnvSelection, providersFromEnv } from "../providers/env-providers.ts";
import type { ParsedFile } from "./parse.ts";
import { formatPath, type KeyPath, type Problem, ProblemList } from "./problems.ts";
import { pruneSchemaErrors } from "./prune.ts";
import { readLayer } from "./read-layer.ts";
import { type AppConfig, AppConfigSchema, CURRENT_CONFIG_VERSION } from "./schema.ts";
import { checkSemantics } from "./semantic.ts";
import { substituteTree, type SubstitutionOptions } from "./substitute.ts";
import type { TrustStore } from "./trust-store.ts";
import { assessProjectTrust, type ProjectTrust, type UntrustedPolicy, withoutUntrusted } from "./trust/assess.ts";
import { RuleAnswerStore, ruleAnswersFile } from "./trust/rule-answers.ts";
import { ProjectTrustStore, projectTrustFile } from "./trust/store.ts";
import { readRuleFile, RULE_FILE_NAME } from "../permissions/rule-file.ts";
import { upgradeLayer } from "./upgrade.ts";

export interface LoadOptions {
  cwd: string;
  env: Env;
  /** `--config FILE`: replaces the global layer for this run. */
  configFile?: string;
  commandTimeoutMs?: number;
  /**
   * What to do with project settings that start programs or send credentials elsewhere and are not
   * trusted (src/config/trust): `strip` (default) leaves them out; `keep` loads them for this run only
   * (`--trust-project`, and commands that only show or check the config).
   */
  untrusted?: UntrustedPolicy;
}

export interface Layer {
  name: LayerName;
  path: string;
  parsed?: ParsedFile;
  /** The version the file declared (undefined: none), and whether it was upgraded in memory. */
  version?: number;
  upgraded: boolean;
}

export interface LoadedConfig {
  ok: boolean;
  config: AppConfig;
  models: ModelTable;
  defaults: TierDefaults;
  trustStore?: TrustStore;
  layers: Layer[];
  origins: Origins;
  problems: Problem[];
  /** Values that came from substitution or static keys; never shown. */
  secrets: string[];
  project: ProjectLocation;
  /** Whether the project's programs, scripts and credential-bearing addresses may be used. */
  trust: ProjectTrust;
  /** Set when no config file names a provider and key variables of the environment were looked at. */
  fromEnvironment: EnvSelection | null;
}

const isEmptyMap = (v: unknown) => !v || (typeof v === "object" && Object.keys(v).length === 0);

function locateLayer(layers: Layer[], origins: Origins, parts: KeyPath): Layer | undefined {
  const key = formatPath(parts);
  const exact = origins.get(key);
  const pick = (n: LayerName | undefined) => layers.find((l) => l.name === n && l.parsed);
  if (exact) return pick(exact);
  // The nearest enclosing key a layer set, or wrote values inside (a missing field of an entry only the
  // project has is the project's, though the global layer set other entries of the same block).
  for (let n = parts.length; n >= 0; n--) {
    const prefix = formatPath(parts.slice(0, n));
    const own = origins.get(prefix);
    if (own) return pick(own);
    if (n === 0) break;
    for (const [path, layer] of origins) if (path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`)) return pick(layer);
  }
  return layers.find((l) => l.parsed);
}

function trimStaticKeys(doc: Record<string, unknown>, secrets: Set<string>): void {
  const providers = doc.providers as Record<string, { auth?: { type?: unknown; key?: unknown } }> | undefined;
  if (!providers || typeof providers !== "object") return;
  for (const p of Object.values(providers)) {
    const auth = p?.auth;
    if (auth && auth.type === "static_key" && typeof auth.key === "string") {
      const key = auth.key.trim();
      auth.key = key;
      if (key) secrets.add(key);
    }
  }
}

export function loadConfig(options: LoadOptions): LoadedConfig {
  const out = new ProblemList();
  const layerProblems = new Map<LayerName, ProblemList>();
  const project = findProject(options.cwd, options.env);
  const layers: Layer[] = [];

  let globalPath: string | undefined;
  if (options.configFile) {
    globalPath = resolve(options.cwd, options.configFile);
  } else {
    const found = findConfigIn(globalConfigDir(options.env));
    if (found.kind === "conflict") out.error([], `two global config files exist: ${found.paths.join(" and ")}; keep one`, { file: found.paths[0] });
    else if (found.kind === "one") globalPath = found.path;
  }
  if (globalPath) layers.push({ name: "global", path: globalPath, upgraded: false });

  if (project.agentDir) {
    const found = findConfigIn(project.agentDir);
    if (found.kind === "conflict") out.error([], `two project config files exist: ${found.paths.join(" and ")}; keep one`, { file: found.paths[0] });
    else if (found.kind === "one") layers.push({ name: "project", path: found.path, upgraded: false });
  }

  const secrets = new Set<string>();
  const commandCache = new Map<string, string | Error>();
  const substitution = (global: boolean, commandsAllowed: boolean): SubstitutionOptions => ({
    env: options.env,
    commandsAllowed,
    commandsRefusedBecause: global ? "config_command_substitution is off in the global config" : "values in a project config never run commands",
    commandCache,
    timeoutMs: options.commandTimeoutMs ?? 10_000,
    cwd: project.root,
    secrets,
  });
  const docs: Partial<Record<LayerName, Record<string, unknown>>> = {};
  let projectRaw: Record<string, unknown> | undefined;
  let followSymlinks = true;
  for (const layer of layers) {
    const problems = new ProblemList();
    layerProblems.set(layer.name, problems);
    if (layer.name === "project" && !followSymlinks && lstatSync(layer.path).isSymbolicLink()) {
      out.warn([], "the project config is a symlink and daemon.follow_symlinks_for_configs is off in the global config; it was skipped", { file: layer.path });
      continue;
    }
    const parsed = readLayer(layer.name, layer.path, out);
    if (!parsed) continue;
    layer.parsed = parsed;
    let doc = parsed.data as Record<string, unknown>;
    const upgrade = upgradeLayer(doc, problems);
    doc = upgrade.doc;
    layer.version = upgrade.from;
    layer.upgraded = upgrade.upgraded;
    // The merged result carries the current version; a layer's own key only says what it was written for.
    delete doc.version;
    const global = layer.name === "global";
    if (!global && "config_command_substitution" in doc) {
      problems.warn(["config_command_substitution"], "is honoured only in the global config; ignored here");
      delete doc.config_command_substitution;
    }
    if (!global) {
      // Substituted once trust has left out what waits for it (below): no value of the environment is
      // read for a setting the project may not use yet.
      projectRaw = doc;
      docs.project = doc;
      continue;
    }
    doc = substituteTree(doc, [], substitution(true, doc.config_command_substitution === true), problems) as Record<string, unknown>;
    trimStaticKeys(doc, secrets);
    docs.global = doc;
    followSymlinks = (doc.daemon as { follow_symlinks_for_configs?: unknown } | undefined)?.follow_symlinks_for_configs !== false;
  }

  const trust = assessProjectTrust({
    projectRaw,
    global: docs.global,
    projectRoot: project.root,
    cwd: options.cwd,
    permissionRules: projectAllowRules(project.root, followSymlinks),
    store: new ProjectTrustStore(projectTrustFile(dataRoot(options.env))),
    answers: new RuleAnswerStore(ruleAnswersFile(dataRoot(options.env))),
    file: layers.find((l) => l.name === "project" && l.parsed)?.path ?? project.root,
    policy: options.untrusted ?? "strip",
  });
  if (trust.storeError) out.warn([], `${trust.storeError}; every project counts as not trusted until it is fixed`);
  if (trust.answersError) out.warn([], `${trust.answersError}; allow rules you added by answering 'allow always in this project' wait for 'agent trust' until it is fixed`);
  // Untrusted settings go before substitution and the merge, so nothing below (validation aside) ever sees them.
  const used = withoutUntrusted(docs, trust);
  const projectProblems = layerProblems.get("project");
  if (used.project && projectProblems) {
    let doc = substituteTree(used.project, [], substitution(false, false), projectProblems) as Record<string, unknown>;
    doc = enforceGlobalAuthority(doc, projectProblems);
    trimStaticKeys(doc, secrets);
    used.project = doc;
  }

  // Layer-level problems are located in their own file.
  for (const layer of layers) {
    for (const p of layerProblems.get(layer.name)?.items ?? []) {
      const pos = p.parts && layer.parsed?.locate(p.parts);
      out.items.push({ ...p, file: layer.path, line: pos?.line, column: pos?.column });
    }
  }

  const origins: Origins = new Map();
  let merged: Record<string, unknown> = {};
  if (used.global) merged = mergeLayers({}, dropNulls(used.global) as Record<string, unknown>, "global", origins);
  if (used.project) merged = mergeLayers(merged, used.project, "project", origins);

  if (layers.some((l) => l.parsed)) merged = { version: CURRENT_CONFIG_VERSION, ...merged };
  // No provider in any file: the key variables of the environment choose (src/providers/env-providers.ts).
  const fromEnvironment = isEmptyMap(merged.providers) ? providersFromEnv(options.env) : null;
  if (fromEnvironment && fromEnvironment.found.length > 0) {
    merged = { ...merged, providers: fromEnvironment.providers };
    if (Object.keys(fromEnvironment.models).length > 0) merged.models = { ...fromEnvironment.models, ...((merged.models ?? {}) as object) };
    const defaults = (merged.defaults ?? {}) as Record<string, unknown>;
    if (!defaults.full && fromEnvironment.defaults) merged.defaults = { ...fromEnvironment.defaults, ...defaults };
    for (const key of fromEnvironment.secrets) secrets.add(key);
  }
  const mergedProblems = new ProblemList();
  checkValue(AppConfigSchema, merged, [], mergedProblems);
  const config = pruneSchemaErrors(merged, mergedProblems.items) as AppConfig;
  const models = resolveModels(config, mergedProblems, modelCatalog(dataRoot(options.env)));
  const defaults = resolveDefaults(config, models, mergedProblems);
  const { trustStore } = checkSemantics(config, models, { projectRoot: project.root, agentDir: project.agentDir, cwd: options.cwd }, mergedProblems);

  for (const p of mergedProblems.items) {
    const layer = p.parts ? locateLayer(layers, origins, p.parts) : undefined;
    const pos = layer && p.parts ? layer.parsed?.locate(p.parts) : undefined;
    out.items.push({ ...p, file: layer?.path, line: pos?.line, column: pos?.column });
  }

  const order = new Map(layers.map((l, i) => [l.path, i]));
  out.items.sort((a, b) => (order.get(a.file ?? "") ?? -1) - (order.get(b.file ?? "") ?? -1) || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  return {
    ok: out.errors.length === 0,
    config,
    models,
    defaults,
    trustStore,
    layers,
    origins,
    problems: out.items,
    secrets: [...secrets],
    project,
    trust,
    fromEnvironment,
  };
}

/**
 * The allow rules of the project's rule file, as the permission gate will read it (src/permissions/gate.ts):
 * they loosen what runs without asking, so they are a trust item. A broken or unreadable file gives none
 * here; the gate reports it and the session does not start with it.
 */
function projectAllowRules(root: string, followSymlinks: boolean): { file: string; shownAs: string; allow: string[] } | undefined {
  const file = join(root, ".agent", RULE_FILE_NAME);
  const shownAs = join(".agent", RULE_FILE_NAME);
  try {
    if (!followSymlinks && lstatSync(file).isSymbolicLink()) return undefined;
    return { file, shownAs, allow: readRuleFile(file, shownAs).filter((r) => r.effect === "allow").map((r) => r.text) };
  } catch {
    return undefined;
  }
}
