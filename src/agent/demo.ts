// The offline demo (`--demo`): the built-in `test` provider replaying a shipped script, so every screen
// can be tried without an account. It is labelled as a demo wherever it shows.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppConfig } from "../config/schema.ts";
import script from "./demo-script.txt" with { type: "text" };

export const DEMO_PROVIDER = "offline-demo";
export const DEMO_MODEL = "test-scripted";
export const DEMO_NOTICE = "offline demo: scripted answers from the built-in test provider, no model is involved";

/**
 * How many times the last answer repeats: the test provider answers a request by the number of answers
 * in its context, so this is how long a demo conversation goes on (past it, `/clear` starts over).
 */
export const DEMO_REPEATS = 100;

/** Writes the shipped script under the data root (the test provider reads a file) and returns its path. */
export function writeDemoScript(dataRoot: string): string {
  const dir = join(dataRoot, "demo");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, "script.yaml");
  const last = script.trimEnd().split("\n").at(-1)!;
  writeFileSync(path, `${script.trimEnd()}\n${`${last}\n`.repeat(DEMO_REPEATS)}`);
  return path;
}

/** The config with the demo provider added (the demo model resolves through it). */
export function withDemoProvider(config: AppConfig, scriptPath: string): AppConfig {
  return { ...config, providers: { ...config.providers, [DEMO_PROVIDER]: { kind: { type: "catalog", name: "test" }, url: scriptPath } } };
}
