// What each built-in tool is, in one place: how permission rules name it and read its paths, whether plan
// mode lets it run, how an ACP editor shows it, whether subagents get it. Every table the permission
// rules, the facets, ACP, the subagents and the config's name checks need is derived from this record
// (it lives in protocol/ because all of those layers, down to config and up to acp, may read it).
// A new built-in tool adds one entry here and nothing else (docs/architecture.md, "A built-in tool").

/** The kinds ACP defines for a tool call (`ToolKind` of @agentclientprotocol/sdk). */
export type AcpToolKind = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "switch_mode" | "other";

export interface ToolTraits {
  /**
   * How a permission rule names the tool: `never` (it needs no permission; rules cannot name it), `name`
   * (a bare rule, no specifier), or what the rule's `(...)` holds: a `shell` command, a `path` glob, a
   * `domain:host`.
   */
  permission: "never" | "name" | "shell" | "path" | "domain";
  /** The tool stands in for another under the name a model family is trained on; lists and rules naming that tool cover it. */
  standsInFor?: string;
  /** Rules on this tool also govern it: `read(...)` governs the searches, `edit(...)` every file change. */
  governedBy?: string;
  /**
   * Where a `path` tool's call names its paths: `path` (the `path` argument), `path-or-cwd` (a search: no
   * `path` means the working directory), `path-or-patch` (the `path` argument, or each file a `patch` touches).
   */
  paths?: "path" | "path-or-cwd" | "path-or-patch";
  /** It shows a file's content, so a secret file (permissions.secret_files) asks before it. */
  showsContent?: boolean;
  /** Plan mode (a read-only facet) lets it run: it changes no file, runs no command and starts no work. */
  planSafe: boolean;
  /** How an ACP editor shows its calls. */
  acpKind: AcpToolKind;
  /** `true`: subagents may get it; otherwise why they never do. */
  subagents: true | string;
}

export type ToolTraitTable = Readonly<Record<string, ToolTraits>>;

export const BUILTIN_TOOL_TRAITS = {
  shell: { permission: "shell", planSafe: false, acpKind: "execute", subagents: true },
  read: { permission: "path", paths: "path", showsContent: true, planSafe: true, acpKind: "read", subagents: true },
  write: { permission: "path", paths: "path", governedBy: "edit", planSafe: false, acpKind: "edit", subagents: true },
  edit: { permission: "path", paths: "path-or-patch", showsContent: true, planSafe: false, acpKind: "edit", subagents: true },
  // The patch form of `edit` for OpenAI's models (src/tools/edit/apply-patch.ts), checked as that edit (Tool.permissionAs).
  apply_patch: { permission: "path", standsInFor: "edit", planSafe: false, acpKind: "edit", subagents: true },
  glob: { permission: "path", paths: "path-or-cwd", governedBy: "read", planSafe: true, acpKind: "search", subagents: true },
  grep: { permission: "path", paths: "path-or-cwd", governedBy: "read", showsContent: true, planSafe: true, acpKind: "search", subagents: true },
  web_fetch: { permission: "domain", planSafe: true, acpKind: "fetch", subagents: true },
  web_search: { permission: "name", planSafe: true, acpKind: "fetch", subagents: true },
  // The loop's own tools and the model's checklist change nothing outside the conversation.
  progress_update: { permission: "never", planSafe: true, acpKind: "other", subagents: true },
  plan: { permission: "never", planSafe: true, acpKind: "other", subagents: "the plan the user watches belongs to the root session" },
  exit_tool: { permission: "never", planSafe: true, acpKind: "other", subagents: true },
  tool_search: { permission: "never", planSafe: true, acpKind: "search", subagents: "a subagent is offered all of its tools from the start" },
  // The goal tools change only the session's goal.
  goal_propose: { permission: "never", planSafe: false, acpKind: "other", subagents: "the goal belongs to the root session" },
  goal_update: { permission: "never", planSafe: false, acpKind: "other", subagents: "the goal belongs to the root session" },
  goal_complete: { permission: "never", planSafe: false, acpKind: "other", subagents: "the goal belongs to the root session" },
  // Delegation only: each call its subagent makes passes the permission gate.
  task: { permission: "never", planSafe: false, acpKind: "think", subagents: "subagents cannot start subagents" },
} as const satisfies ToolTraitTable;

export type BuiltinToolName = keyof typeof BUILTIN_TOOL_TRAITS;

/** The tool names of a table, in its order. */
export const toolNames = (table: ToolTraitTable): string[] => Object.keys(table);

/** Tools that never need permission. */
export const noPermissionTools = (table: ToolTraitTable): string[] => toolNames(table).filter((n) => table[n]!.permission === "never");

/** Tools that stand in for another: name -> the tool it stands in for. */
export function toolAliases(table: ToolTraitTable): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, t] of Object.entries(table)) if (t.standsInFor) out[name] = t.standsInFor;
  return out;
}

/** Tools plan mode lets run. */
export const planSafeTools = (table: ToolTraitTable): string[] => toolNames(table).filter((n) => table[n]!.planSafe);

/** Tools subagents never get, with why. */
export function subagentForbiddenTools(table: ToolTraitTable): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, t] of Object.entries(table)) if (t.subagents !== true) out.set(name, t.subagents);
  return out;
}
