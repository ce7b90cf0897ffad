// The `grep` tool on a generated 100k-file repository against ripgrep (Debian `ripgrep`) in the same run.
// Each of our runs starts with a cold file catalog (a fresh walk honouring .gitignore), as ripgrep's
// does; a warm-catalog figure is printed too. Target: median at most 3x ripgrep's.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createToolContext } from "../src/tools/context.ts";
import { grepTool } from "../src/tools/grep.ts";
import { runTool } from "../src/tools/tool.ts";

const FILES = Number(process.env.BENCH_GREP_FILES ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PER_DIR = 100;
const PATTERN = "needle_[0-9]+\\(";
const TARGET = 3;

const rg = Bun.which("rg");
if (!rg) {
  console.log("bench/grep: ripgrep (`rg`, Debian package ripgrep) is not installed; cannot compare. FAIL");
  process.exit(1);
}

const root = mkdtempSync(join(tmpdir(), "agent-bench-grep-"));
mkdirSync(join(root, ".git"));
writeFileSync(join(root, ".gitignore"), "build/\n*.log\n");
const filler = Array.from({ length: 12 }, (_, i) => `export function helper${i}(value: number): number { return value * ${i} + 1; }`).join("\n");
let planted = 0;
for (let i = 0; i < FILES; i++) {
  const dir = join(root, `pkg${Math.floor(i / PER_DIR / 10)}`, `mod${Math.floor(i / PER_DIR)}`);
  if (i % PER_DIR === 0) mkdirSync(dir, { recursive: true });
  const needle = i % 500 === 0 ? `\nconst x = needle_${planted++}(1);` : "";
  writeFileSync(join(dir, `file${i}.ts`), `// file ${i}\n${filler}${needle}\n`);
}
// Ignored files both tools must skip.
mkdirSync(join(root, "build"));
for (let i = 0; i < 200; i++) writeFileSync(join(root, "build", `out${i}.ts`), "needle_999(1);\n");

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const clock = { now: () => Date.now() };

async function ours(warmCtx?: ReturnType<typeof createToolContext>): Promise<{ ms: number; matches: number }> {
  const ctx = warmCtx ?? createToolContext({ projectRoot: root, clock, supportsVision: false });
  const start = Bun.nanoseconds();
  const result = await runTool(grepTool, { pattern: PATTERN }, ctx, new AbortController().signal);
  const ms = (Bun.nanoseconds() - start) / 1e6;
  if (result.isError) throw new Error(result.output);
  return { ms, matches: Number((result.metadata as { matches: number }).matches) };
}

async function ripgrep(): Promise<{ ms: number; matches: number }> {
  const start = Bun.nanoseconds();
  const proc = Bun.spawn([rg!, "-n", "--no-heading", "-e", PATTERN, "."], { cwd: root, stdout: "pipe", stderr: "inherit" });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const ms = (Bun.nanoseconds() - start) / 1e6;
  return { ms, matches: out.split("\n").filter(Boolean).length };
}

// One warm-up each so both read from the page cache.
const warm = await ours();
const reference = await ripgrep();
if (warm.matches !== planted || reference.matches !== planted) {
  console.log(`bench/grep: match counts differ (ours ${warm.matches}, rg ${reference.matches}, planted ${planted}). FAIL`);
  process.exit(1);
}
const oursMs: number[] = [];
const rgMs: number[] = [];
for (let i = 0; i < RUNS; i++) {
  oursMs.push((await ours()).ms);
  rgMs.push((await ripgrep()).ms);
}
const warmCtx = createToolContext({ projectRoot: root, clock, supportsVision: false });
await ours(warmCtx);
const warmMs: number[] = [];
for (let i = 0; i < RUNS; i++) warmMs.push((await ours(warmCtx)).ms);
rmSync(root, { recursive: true, force: true });

const a = median(oursMs);
const b = median(rgMs);
const ratio = a / b;
console.log(`grep: ${FILES} files (${planted} matches, 200 ignored), pattern /${PATTERN}/, median of ${RUNS} after a warm-up`);
console.log(`  grep tool, cold catalog  ${a.toFixed(0)} ms`);
console.log(`  grep tool, warm catalog  ${median(warmMs).toFixed(0)} ms`);
console.log(`  ripgrep (reference)      ${b.toFixed(0)} ms`);
console.log(`  grep tool / ripgrep ${ratio.toFixed(2)}x (target <= ${TARGET}x): ${ratio <= TARGET ? "PASS" : "FAIL"}`);
