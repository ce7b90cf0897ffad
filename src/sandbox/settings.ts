// The sandbox settings a session runs with: the global `sandbox` block, a project's values only where
// they tighten it (stricter mode, network off, fewer writable roots, fewer skipped questions), then the
// run's own flags (`--sandbox`, `--autonomy`, `--full-auto`), which are the user's.
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { LoadedConfig } from "../config/load.ts";
import { AUTONOMY_LEVELS, SANDBOX_MODES } from "../config/schema/sandbox.ts";

export type SandboxMode = (typeof SANDBOX_MODES)[number];
export type Autonomy = (typeof AUTONOMY_LEVELS)[number];

export interface SandboxSettings {
  mode: SandboxMode;
  network: boolean;
  /** Absolute directories writable in workspace_write besides the project and the shell's temp dir. */
  writableRoots: string[];
  autonomy: Autonomy;
  /** One line per project value left out for loosening the global settings, or a root that cannot be used. */
  notes: string[];
}

/** Per-run choices (`agent exec` / `agent new` flags); they hold for that run only. */
export interface SandboxOverrides {
  mode?: SandboxMode;
  autonomy?: Autonomy;
}

interface Block {
  mode?: SandboxMode | null;
  network?: boolean | null;
  writable_roots?: string[];
  autonomy?: Autonomy | null;
}

function layerBlock(loaded: LoadedConfig, name: "global" | "project"): Block {
  const data = loaded.layers.find((l) => l.name === name)?.parsed?.data as { sandbox?: Block | null } | undefined;
  return data?.sandbox ?? {};
}

function expandRoot(root: string, home: string): string | null {
  if (root === "~") return home;
  if (root.startsWith("~/")) return join(home, root.slice(2));
  return isAbsolute(root) ? resolve(root) : null;
}

export function resolveSandboxSettings(loaded: LoadedConfig, overrides: SandboxOverrides = {}, home: string = process.env.HOME ?? homedir()): SandboxSettings {
  const global = layerBlock(loaded, "global");
  const project = layerBlock(loaded, "project");
  const notes: string[] = [];
  const loosens = (key: string, value: unknown) => notes.push(`the project's sandbox.${key} (${JSON.stringify(value)}) is left out: a project may only tighten the sandbox set in the global config`);

  let autonomy: Autonomy = global.autonomy ?? "ask";
  if (project.autonomy) {
    if (AUTONOMY_LEVELS.indexOf(project.autonomy) <= AUTONOMY_LEVELS.indexOf(autonomy)) autonomy = project.autonomy;
    else loosens("autonomy", project.autonomy);
  }
  if (overrides.autonomy) autonomy = overrides.autonomy;

  // Sandboxed autonomy needs a sandbox: without a mode written anywhere it brings workspace_write.
  let mode: SandboxMode = global.mode ?? (autonomy === "sandboxed" ? "workspace_write" : "off");
  if (project.mode) {
    if (SANDBOX_MODES.indexOf(project.mode) >= SANDBOX_MODES.indexOf(mode)) mode = project.mode;
    else loosens("mode", project.mode);
  }
  if (overrides.mode) mode = overrides.mode;
  else if (overrides.autonomy === "sandboxed" && mode === "off") mode = "workspace_write";

  let network = global.network ?? false;
  if (project.network === false) network = false;
  else if (project.network === true && !network) loosens("network", true);

  const roots: string[] = [];
  for (const root of global.writable_roots ?? []) {
    const path = expandRoot(root, home);
    if (path) roots.push(path);
    else notes.push(`sandbox.writable_roots: ${JSON.stringify(root)} is left out; write an absolute path or one starting with ~/`);
  }
  // A project's list narrows the global one; it cannot add a directory.
  if (project.writable_roots) {
    const kept = roots.filter((r) => project.writable_roots!.some((p) => expandRoot(p, home) === r));
    for (const p of project.writable_roots) if (!roots.includes(expandRoot(p, home) ?? "")) loosens("writable_roots", p);
    roots.splice(0, roots.length, ...kept);
  }
  return { mode, network, writableRoots: roots, autonomy, notes };
}
