// A throwaway home + project with rule files and a config, and the gate loaded from them.
import { join } from "node:path";
import { loadPermissionGate, type Classifier, type PermissionGate, type PermissionRequest } from "../../src/permissions/index.ts";
import type { GateSandbox } from "../../src/permissions/gate.ts";
import { FakeClock } from "../fakes/fake-clock.ts";
import { configEnv } from "../helpers/config-env.ts";

export interface GateSetup {
  globalRules?: string;
  projectRules?: string;
  /** Global config YAML. */
  config?: string;
  classify?: Classifier;
  sandbox?: GateSandbox;
  runRules?: { allow?: string[]; deny?: string[] };
}

export async function gateFor(setup: GateSetup = {}) {
  const env = configEnv();
  const globalDir = join(env.home, ".config", "agent");
  if (setup.config !== undefined) env.globalFile(setup.config);
  if (setup.globalRules !== undefined) await Bun.write(join(globalDir, "permissions.yaml"), setup.globalRules);
  if (setup.projectRules !== undefined) env.file(".agent/permissions.yaml", setup.projectRules);
  // The rule files here are the user's own: trusted, as `agent trust` would (test/permissions/project-trust.test.ts covers the gating).
  const loaded = env.load({ untrusted: "keep" });
  if (!loaded.ok) throw new Error(`test config is invalid: ${JSON.stringify(loaded.problems)}`);
  const gate: PermissionGate = await loadPermissionGate({ loaded, projectRoot: env.project, globalConfigDir: globalDir, clock: new FakeClock(), classify: setup.classify, home: env.home, sandbox: setup.sandbox, runRules: setup.runRules });
  const req = (tool: string, input: Record<string, unknown>, cwd = env.project): PermissionRequest => ({ tool, input, cwd, projectRoot: env.project });
  return { env, gate, req, globalDir, check: (tool: string, input: Record<string, unknown>, cwd?: string) => gate.check(req(tool, input, cwd)) };
}
