// Implementations of `agent config validate|show|path|upgrade`.
import { statSync } from "node:fs";
import { join } from "node:path";
import { isMap, isScalar, parseDocument, stringify, type YAMLMap } from "yaml";
import { findConfigIn, findProject, globalConfigDir } from "../config/files.ts";
import { type LoadedConfig, loadConfig } from "../config/load.ts";
import { formatProblem, formatPath, type Problem } from "../config/problems.ts";
import { redactConfig } from "../config/redact-config.ts";
import { untrustedNotice } from "../config/trust/assess.ts";
import { CURRENT_CONFIG_VERSION } from "../config/schema.ts";
import { formatOf } from "../config/parse.ts";
import { writeVersion } from "../config/upgrade.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { type Io, type ParsedArgs, EXIT } from "../util/cli-command.ts";

/** Every setting is checked and shown, trusted or not: these commands start nothing (`agent trust`). */
function load(args: ParsedArgs, io: Io): LoadedConfig {
  return loadConfig({ cwd: io.cwd, env: io.env, configFile: args.flags.config as string | undefined, untrusted: "keep" });
}

function problemJson(p: Problem) {
  const { parts: _, ...rest } = p;
  return rest;
}

function layersJson(loaded: LoadedConfig) {
  return loaded.layers.map((l) => ({ layer: l.name, path: l.path, version: l.version ?? null, upgraded_in_memory: l.upgraded }));
}

function printProblems(io: Io, problems: Problem[]): void {
  for (const p of problems) io.err(`${formatProblem(p)}\n`);
}

function summary(problems: Problem[]): string {
  const errors = problems.filter((p) => p.severity === "error").length;
  const warnings = problems.length - errors;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  return `${plural(errors, "error")}, ${plural(warnings, "warning")}`;
}

/** The permission rule files are checked beside the config: a broken one stops every session too. */
async function ruleProblems(loaded: LoadedConfig, io: Io): Promise<Problem[]> {
  const { ruleFileProblems, RULE_FILE_NAME } = await import("../permissions/rule-file.ts");
  const global = join(globalConfigDir(io.env), RULE_FILE_NAME);
  const project = join(loaded.project.root, ".agent", RULE_FILE_NAME);
  return ruleFileProblems([{ path: global, shownAs: global }, { path: project, shownAs: project }]).map((p) => ({
    severity: "error" as const,
    file: p.file,
    line: p.line,
    column: p.column,
    path: "permissions.yaml",
    message: p.message,
  }));
}

export async function validate(args: ParsedArgs, io: Io): Promise<number> {
  const config = load(args, io);
  const { configAdvice } = await import("./config-advice.ts");
  const rules = await ruleProblems(config, io);
  const loaded = rules.length > 0 ? { ...config, ok: false } : config;
  const problems = [...loaded.problems, ...rules, ...(await configAdvice(loaded, io.env))];
  if (args.flags.json) {
    io.out(`${JSON.stringify({
      ok: loaded.ok,
      files: layersJson(loaded),
      errors: problems.filter((p) => p.severity === "error").map(problemJson),
      warnings: problems.filter((p) => p.severity === "warning").map(problemJson),
    }, null, 2)}\n`);
    return loaded.ok ? EXIT.ok : EXIT.failure;
  }
  printProblems(io, problems);
  if (loaded.trust.state === "untrusted" || loaded.trust.state === "changed") {
    io.err(`note: ${untrustedNotice(loaded.trust, io.cwd).replace("; started without:", "; sessions start without:")}\n`);
  }
  // Two files of one layer (config.yaml and config.toml) are an error and neither is read: not "no file".
  if (loaded.layers.length === 0 && !loaded.ok) {
    io.out(`Config has problems: ${summary(problems)}\n`);
    return EXIT.failure;
  }
  if (loaded.layers.length === 0) {
    io.out(`No config file found. Create ${globalConfigDir(io.env)}/config.yaml (global) or .agent/config.yaml (project); see 'agent config path'.\n`);
    return loaded.ok ? EXIT.ok : EXIT.failure;
  }
  const files = loaded.layers.map((l) => `${l.name} ${l.path}`).join(", ");
  if (loaded.ok) io.out(`Config OK (${summary(problems)}): ${files}\n`);
  else io.out(`Config has problems: ${summary(problems)} in ${files}\n`);
  return loaded.ok ? EXIT.ok : EXIT.failure;
}

/** YAML of the merged config with the layer that set each key as a line comment. */
function annotatedYaml(config: unknown, loaded: LoadedConfig): string {
  const doc = parseDocument(stringify(config, { aliasDuplicateObjects: false }));
  const walk = (node: unknown, path: (string | number)[]) => {
    if (!isMap(node)) return;
    for (const pair of (node as YAMLMap).items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const here = [...path, key];
      const origin = loaded.origins.get(formatPath(here));
      if (origin && pair.value && typeof pair.value === "object" && !isMap(pair.value)) {
        (pair.value as { comment?: string }).comment = ` ${origin}`;
      }
      walk(pair.value, here);
    }
  };
  walk(doc.contents, []);
  return doc.toString();
}

export async function show(args: ParsedArgs, io: Io): Promise<number> {
  const loaded = load(args, io);
  const config = redactConfig(loaded.config, loaded.secrets);
  const effective = Boolean(args.flags.effective);
  const models = Object.fromEntries([...loaded.models.models].map(([k, m]) => [k, m]));
  if (args.flags.json) {
    const body: Record<string, unknown> = { config };
    if (effective) {
      body.origins = Object.fromEntries(loaded.origins);
      body.files = layersJson(loaded);
      body.models = redactConfig(models, loaded.secrets);
      body.defaults = loaded.defaults;
      body.pending_model_overlays = loaded.models.pending.map((p) => ({ key: p.key, provider: p.provider }));
    }
    body.errors = loaded.problems.filter((p) => p.severity === "error").map(problemJson);
    io.out(`${JSON.stringify(body, null, 2)}\n`);
  } else {
    printProblems(io, loaded.problems);
    if (!effective) {
      io.out(stringify(config, { aliasDuplicateObjects: false }));
    } else {
      io.out(`# Files: ${loaded.layers.map((l) => `${l.name} ${l.path}`).join(", ") || "none"}\n`);
      io.out(`# Each value is followed by the layer that set it.\n`);
      io.out(annotatedYaml(config, loaded));
      io.out(`\n# Models (derived: values computed from the context window)\n`);
      for (const m of loaded.models.models.values()) {
        const derived = m.derived.length ? `  derived: ${m.derived.map((f) => `${f}=${m[f as keyof typeof m]}`).join(", ")}` : "";
        io.out(`${m.key}: provider=${m.provider} class=${m.class} context_window=${m.context_window} max_output_tokens_per_turn=${m.max_output_tokens_per_turn} compaction_threshold=${m.compaction_threshold} max_tool_batch_size=${m.max_tool_batch_size}${derived}\n`);
      }
      io.out(`\n# Defaults\n`);
      for (const [tier, c] of Object.entries(loaded.defaults)) {
        io.out(`${tier}: ${c.model}${c.effort ? `(${c.effort})` : ""}  [${c.source}]\n`);
      }
    }
  }
  return loaded.ok ? EXIT.ok : EXIT.failure;
}

export async function path(args: ParsedArgs, io: Io): Promise<number> {
  const configFlag = args.flags.config as string | undefined;
  const globalDir = globalConfigDir(io.env);
  const global = configFlag ? { kind: "one" as const, path: configFlag } : findConfigIn(globalDir);
  const project = findProject(io.cwd, io.env);
  const projectFiles = project.agentDir ? findConfigIn(project.agentDir) : undefined;
  const describe = (s: ReturnType<typeof findConfigIn> | undefined, fallback: string) =>
    !s ? { path: null, exists: false, note: fallback }
      : s.kind === "one" ? { path: s.path, exists: true }
      : s.kind === "conflict" ? { path: s.paths[0]!, exists: true, note: `conflict: ${s.paths.join(" and ")}` }
      : { path: s.candidates[0]!, exists: false };
  const result = {
    global: describe(global, ""),
    project: describe(projectFiles, `no .agent directory found from ${io.cwd} up to ${project.repoRoot ? `the repository root ${project.repoRoot}` : "the filesystem root"}`),
    project_root: project.root,
  };
  if (args.flags.json) {
    io.out(`${JSON.stringify(result, null, 2)}\n`);
    return EXIT.ok;
  }
  const line = (name: string, r: { path: string | null; exists: boolean; note?: string }) =>
    `${name}: ${r.path ?? "(none)"}${r.path ? (r.exists ? "" : " (not created yet)") : ""}${r.note ? ` — ${r.note}` : ""}\n`;
  io.out(line("global ", result.global));
  io.out(line("project", result.project));
  io.out(`project root: ${result.project_root}\n`);
  return EXIT.ok;
}

export async function upgrade(args: ParsedArgs, io: Io): Promise<number> {
  const loaded = load(args, io);
  const report: { path: string; from: number | null; action: "upgraded" | "current" | "refused"; reason?: string }[] = [];
  let failed = false;
  for (const layer of loaded.layers) {
    if (!layer.parsed) {
      const why = loaded.problems.find((p) => p.file === layer.path && p.severity === "error");
      report.push({ path: layer.path, from: null, action: "refused", reason: why?.message ?? "could not be read" });
      failed = true;
      continue;
    }
    const declared = layer.version;
    if (declared !== undefined && declared > CURRENT_CONFIG_VERSION) {
      report.push({ path: layer.path, from: declared, action: "refused", reason: `written by a newer agent (version ${declared})` });
      failed = true;
      continue;
    }
    if (declared === CURRENT_CONFIG_VERSION) {
      report.push({ path: layer.path, from: declared, action: "current" });
      continue;
    }
    const text = writeVersion(layer.parsed.text, formatOf(layer.path)!);
    writeFileAtomic(layer.path, text, statSync(layer.path).mode & 0o777);
    report.push({ path: layer.path, from: declared ?? null, action: "upgraded" });
  }
  if (args.flags.json) {
    io.out(`${JSON.stringify({ files: report }, null, 2)}\n`);
  } else if (report.length === 0) {
    io.out("No config file found; nothing to upgrade.\n");
  } else {
    for (const r of report) {
      if (r.action === "upgraded") io.out(`upgraded ${r.path} from ${r.from === null ? "an unversioned config" : `version ${r.from}`} to version ${CURRENT_CONFIG_VERSION}\n`);
      else if (r.action === "current") io.out(`${r.path} is already at version ${CURRENT_CONFIG_VERSION}\n`);
      else io.err(`agent: not upgraded: ${r.path}: ${r.reason}\n`);
    }
  }
  return failed ? EXIT.failure : EXIT.ok;
}
