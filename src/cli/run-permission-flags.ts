// The per-run permission flags of `agent exec` and `agent` / `agent new`: --sandbox, --allow, --deny,
// --autonomy and --full-auto. They hold for that run only: nothing is written to a config or rule file.
import { AUTONOMY_LEVELS, SANDBOX_MODES } from "../config/schema/sandbox.ts";
import type { Autonomy, SandboxMode, SandboxOverrides } from "../sandbox/settings.ts";
import type { FlagSpec, ParsedArgs } from "../util/cli-command.ts";
import { UsageError } from "../util/cli-command.ts";

export const RUN_PERMISSION_FLAGS: FlagSpec[] = [
  { name: "sandbox", type: "string", valueName: "MODE", choices: SANDBOX_MODES, summary: "Where shell commands run for this run: workspace_write, read_only or off" },
  { name: "autonomy", type: "string", valueName: "LEVEL", choices: AUTONOMY_LEVELS, summary: "ask, accept_edits, or sandboxed (commands run in the sandbox without asking)" },
  { name: "full-auto", type: "boolean", summary: "Same as --sandbox workspace_write --autonomy sandboxed" },
  { name: "allow", type: "string", valueName: "RULE", repeatable: true, summary: "Allow rule for this run, as in permissions.yaml: shell(git status), edit(src/**)" },
  { name: "deny", type: "string", valueName: "RULE", repeatable: true, summary: "Deny rule for this run, as in permissions.yaml: shell(git push:*)" },
];

export interface RunPermissions {
  sandbox: SandboxOverrides;
  runRules: { allow: string[]; deny: string[] };
}

const list = (value: ParsedArgs["flags"][string]): string[] => (Array.isArray(value) ? value : typeof value === "string" ? [value] : []);

export function runPermissions(args: ParsedArgs): RunPermissions {
  const sandbox: SandboxOverrides = {};
  if (args.flags["full-auto"] === true) {
    if (args.flags.sandbox !== undefined || args.flags.autonomy !== undefined) throw new UsageError("--full-auto already means --sandbox workspace_write --autonomy sandboxed; give either it or those two");
    sandbox.mode = "workspace_write";
    sandbox.autonomy = "sandboxed";
  }
  if (typeof args.flags.sandbox === "string") sandbox.mode = args.flags.sandbox as SandboxMode;
  if (typeof args.flags.autonomy === "string") sandbox.autonomy = args.flags.autonomy as Autonomy;
  if (sandbox.autonomy === "sandboxed" && sandbox.mode === "off") throw new UsageError("--autonomy sandboxed needs a sandbox; --sandbox off runs commands unconfined");
  return { sandbox, runRules: { allow: list(args.flags.allow), deny: list(args.flags.deny) } };
}

/** The same flags as daemon arguments (`agent new` passes them on to the session's daemon). */
export function runPermissionArgs(p: RunPermissions): string[] {
  const argv: string[] = [];
  if (p.sandbox.mode) argv.push("--sandbox", p.sandbox.mode);
  if (p.sandbox.autonomy) argv.push("--autonomy", p.sandbox.autonomy);
  for (const rule of p.runRules.allow) argv.push("--allow", rule);
  for (const rule of p.runRules.deny) argv.push("--deny", rule);
  return argv;
}
