// `bun run eval`: runs the task set in eval/tasks through `agent exec` and reports, per task, whether
// its check passed, the model calls, tokens, cost and time, side by side for each variant (a config
// file, or a commit built on the spot). Each task runs in a fresh throwaway git repository; its check
// runs there afterwards, with the task folder in $TASK_DIR (hidden tests live there, out of the agent's
// sight). See eval/README.md.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";

export const ROOT = resolve(import.meta.dir, "..");
export const TASKS_DIR = join(import.meta.dir, "tasks");

/** What the agent may do in a task's repository: change files and run commands (the task's own tests). */
const PERMISSIONS = "allow:\n  - write\n  - edit\n  - shell\n";

export interface Variant {
  name: string;
  /** The agent to run: an executable, or a .ts entry point run with bun. */
  agent: string;
  /** A config file used instead of the global one (`{{task_dir}}` in it becomes the task's folder). */
  config: string | null;
}

export interface RunResult {
  task: string;
  variant: string;
  success: boolean;
  /** Model calls (assistant messages). */
  turns: number;
  tokens: { input: number; output: number };
  /** USD at models.dev prices; null when no message had a price. */
  cost: number | null;
  ms: number;
  /** exec's exit code (0 done, 1 failed, 3 stopped early, null: killed at the timeout). */
  exit: number | null;
  /** Why it failed, in a line: exec's error or the check's output. */
  note: string;
}

interface Options {
  tasks: string[];
  tasksDir: string;
  variants: Variant[];
  model: string | null;
  timeoutMs: number;
  keep: boolean;
  /** Where the results go as JSON too. */
  json: string | null;
}

/** Task folders: those with a prompt.md and a check.sh. */
export function listTasks(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, "prompt.md")) && existsSync(join(dir, name, "check.sh")))
    .sort();
}

function run(command: string[], cwd: string, env: Record<string, string | undefined>, timeoutMs: number, input?: string) {
  const r = spawnSync(command[0]!, command.slice(1), { cwd, env, encoding: "utf8", timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024, ...(input !== undefined ? { input } : {}) });
  return { code: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", error: r.error };
}

/** A throwaway git repository holding the task's files, committed, with the eval's permission rules. */
function prepareRepo(taskDir: string): string {
  const repo = join(mkdtempSync(join(tmpdir(), "agent-eval-")), "repo");
  cpSync(join(taskDir, "repo"), repo, { recursive: true });
  mkdirSync(join(repo, ".agent"), { recursive: true });
  writeFileSync(join(repo, ".agent", "permissions.yaml"), PERMISSIONS);
  const git = (...args: string[]) => run(["git", "-c", "user.name=eval", "-c", "user.email=eval@localhost", "-c", "commit.gpgsign=false", ...args], repo, process.env, 30_000);
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "task");
  return repo;
}

/** The variant's config for one task (placeholders filled), written beside the repository. */
function taskConfig(variant: Variant, taskDir: string, repo: string): string | null {
  if (!variant.config) return null;
  const text = readFileSync(variant.config, "utf8").replaceAll("{{task_dir}}", taskDir);
  const file = join(repo, "..", "config.yaml");
  writeFileSync(file, text);
  return file;
}

/** Totals of an `agent exec --json` event stream. */
export function summarize(stdout: string): { turns: number; tokens: { input: number; output: number }; cost: number | null; error: string | null } {
  let turns = 0;
  const tokens = { input: 0, output: 0 };
  let cost: number | null = null;
  let error: string | null = null;
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    let e: any;
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (e.type === "assistant_message_completed") {
      turns++;
      tokens.input += e.usage?.input_tokens ?? 0;
      tokens.output += e.usage?.output_tokens ?? 0;
    } else if (e.type === "cost") cost = typeof e.usd === "number" ? e.usd : null;
    else if (e.type === "turn_completed" && e.error) error = `${e.error.code}: ${e.error.message}`;
  }
  return { turns, tokens, cost, error };
}

export function runTask(task: string, variant: Variant, opts: Pick<Options, "tasksDir" | "model" | "timeoutMs" | "keep">): RunResult {
  const taskDir = join(opts.tasksDir, task);
  const repo = prepareRepo(taskDir);
  try {
    const prompt = readFileSync(join(taskDir, "prompt.md"), "utf8").trim();
    const config = taskConfig(variant, taskDir, repo);
    const agent = variant.agent.endsWith(".ts") ? [process.execPath, variant.agent] : [variant.agent];
    const args = ["exec", "--json", "--trust-project", ...(config ? ["--config", config] : []), ...(opts.model ? ["--model", opts.model] : []), "-"];
    const started = performance.now();
    const exec = run([...agent, ...args], repo, process.env, opts.timeoutMs, prompt);
    const ms = Math.round(performance.now() - started);
    const totals = summarize(exec.stdout);
    const check = run(["bash", join(taskDir, "check.sh")], repo, { ...process.env, TASK_DIR: taskDir }, 120_000);
    const success = check.code === 0;
    const why = exec.code === null ? `timed out after ${opts.timeoutMs / 1000} s` : totals.error ?? (exec.code !== 0 ? lastLine(exec.stderr) : "");
    const note = success ? why : [why, `check: ${lastLine(check.stderr || check.stdout) || `exit ${check.code}`}`].filter(Boolean).join("; ");
    return { task, variant: variant.name, success, turns: totals.turns, tokens: totals.tokens, cost: totals.cost, ms, exit: exec.code, note };
  } finally {
    if (!opts.keep) rmSync(join(repo, ".."), { recursive: true, force: true });
  }
}

function lastLine(text: string): string {
  return text.trim().split("\n").at(-1)?.slice(0, 200) ?? "";
}

/**
 * dist/agent built from `commit` of this repository, in a temporary export (node_modules borrowed from
 * this checkout, so a commit with other dependencies needs `bun install` there first).
 */
/** Directories of commit builds, removed when the run ends (unless --keep). */
const builds: string[] = [];

function buildCommit(commit: string): string {
  const sha = run(["git", "rev-parse", "--verify", `${commit}^{commit}`], ROOT, process.env, 30_000);
  if (sha.code !== 0) throw new Error(`--commit ${commit}: not a commit of ${ROOT}`);
  const dir = mkdtempSync(join(tmpdir(), `agent-eval-build-${commit.replace(/[^\w.-]/g, "_")}-`));
  const archive = spawnSync("bash", ["-c", `git -C "${ROOT}" archive "${sha.stdout.trim()}" | tar -x -C "${dir}"`], { encoding: "utf8" });
  if (archive.status !== 0) throw new Error(`--commit ${commit}: git archive failed: ${archive.stderr}`);
  builds.push(dir);
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  process.stderr.write(`building ${commit} in ${dir}…\n`);
  const build = run([process.execPath, "run", "build.ts"], dir, process.env, 600_000);
  const binary = join(dir, "dist", "agent");
  if (build.code !== 0 || !existsSync(binary)) throw new Error(`--commit ${commit}: the build failed:\n${build.stderr.slice(-2000)}`);
  return binary;
}

export function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      tasks: { type: "string" },
      "tasks-dir": { type: "string" },
      config: { type: "string", multiple: true },
      commit: { type: "string", multiple: true },
      agent: { type: "string" },
      model: { type: "string" },
      timeout: { type: "string" },
      json: { type: "string" },
      keep: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(readFileSync(join(import.meta.dir, "README.md"), "utf8"));
    process.exit(0);
  }
  const tasksDir = resolve(values["tasks-dir"] ?? TASKS_DIR);
  const all = listTasks(tasksDir);
  const tasks = values.tasks ? values.tasks.split(",").map((t) => t.trim()) : all;
  const unknown = tasks.filter((t) => !all.includes(t));
  if (unknown.length) throw new Error(`--tasks: no task ${unknown.map((t) => `'${t}'`).join(", ")} in ${tasksDir}; the tasks are: ${all.join(", ")}`);
  const agent = resolve(values.agent ?? join(ROOT, "dist", "agent"));
  const configs = (values.config ?? []).map((c) => resolve(c));
  for (const c of configs) if (!existsSync(c) || !statSync(c).isFile()) throw new Error(`--config ${c}: no such file`);
  const commits = values.commit ?? [];
  // Commits are compared under one config (the global one, or the one --config names).
  if (commits.length > 0 && configs.length > 1) throw new Error("--commit compares commits under one config: give at most one --config with it");
  const variants: Variant[] =
    commits.length > 0
      ? commits.map((c) => ({ name: c, agent: buildCommit(c), config: configs[0] ?? null }))
      : configs.map((c) => ({ name: basename(c).replace(/\.ya?ml$/, ""), agent, config: c }));
  if (variants.length === 0) variants.push({ name: "agent", agent, config: null });
  for (const v of variants) if (!existsSync(v.agent)) throw new Error(`the agent to run, ${v.agent}, does not exist: run \`bun run build\` or pass --agent`);
  // Two variants of the same name would share a column.
  const seen = new Map<string, number>();
  for (const v of variants) {
    const n = (seen.get(v.name) ?? 0) + 1;
    seen.set(v.name, n);
    if (n > 1) v.name = `${v.name}#${n}`;
  }
  const timeout = Number(values.timeout ?? 600);
  if (!Number.isFinite(timeout) || timeout <= 0) throw new Error(`--timeout ${values.timeout}: a number of seconds above 0`);
  return { tasks, tasksDir, variants, model: values.model ?? null, timeoutMs: timeout * 1000, keep: values.keep ?? false, json: values.json ?? null };
}

const kilo = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));
const money = (usd: number | null) => (usd === null ? "-" : `$${usd.toFixed(usd < 0.1 ? 4 : 2)}`);

function cell(r: RunResult): string {
  return `${r.success ? "✓" : "✗"} ${r.turns}t ${kilo(r.tokens.input + r.tokens.output)}tok ${money(r.cost)} ${(r.ms / 1000).toFixed(1)}s`;
}

/** The side-by-side table: one row per task, one column per variant, then the totals. */
export function report(results: RunResult[], tasks: string[], variants: string[]): string {
  const header = ["task", ...variants];
  const rows = tasks.map((t) => [t, ...variants.map((v) => cell(results.find((r) => r.task === t && r.variant === v)!))]);
  const totals = variants.map((v) => {
    const mine = results.filter((r) => r.variant === v);
    const priced = mine.filter((r) => r.cost !== null);
    const cost = priced.length ? priced.reduce((n, r) => n + r.cost!, 0) : null;
    const tokens = mine.reduce((n, r) => n + r.tokens.input + r.tokens.output, 0);
    return `${mine.filter((r) => r.success).length}/${mine.length} ${mine.reduce((n, r) => n + r.turns, 0)}t ${kilo(tokens)}tok ${money(cost)} ${(mine.reduce((n, r) => n + r.ms, 0) / 1000).toFixed(1)}s`;
  });
  rows.push(["total", ...totals]);
  const widths = header.map((_, i) => Math.max(header[i]!.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  const notes = results.filter((r) => r.note).map((r) => `${r.task} [${r.variant}]: ${r.note}`);
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line), ...(notes.length ? ["", ...notes] : [])].join("\n") + "\n";
}

if (import.meta.main) {
  let opts: Options;
  try {
    opts = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`eval: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const results: RunResult[] = [];
  for (const task of opts.tasks) {
    for (const variant of opts.variants) {
      process.stderr.write(`${task} [${variant.name}]…`);
      const r = runTask(task, variant, opts);
      process.stderr.write(` ${r.success ? "ok" : "failed"} (${(r.ms / 1000).toFixed(1)} s)\n`);
      results.push(r);
    }
  }
  if (!opts.keep) for (const dir of builds) rmSync(dir, { recursive: true, force: true });
  process.stdout.write(report(results, opts.tasks, opts.variants.map((v) => v.name)));
  if (opts.json) writeFileSync(opts.json, `${JSON.stringify({ variants: opts.variants.map(({ name, config }) => ({ name, config })), results }, null, 2)}\n`);
  process.exit(results.every((r) => r.success) ? 0 : 1);
}

