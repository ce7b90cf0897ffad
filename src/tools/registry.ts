// The tools a conversation offers: the built-ins this folder implements, tools other parts register,
// minus `daemon.disabled_tools` (the required tools stay, with a warning).
import type { Static } from "@sinclair/typebox";
import { REQUIRED_TOOL_NAMES } from "../config/builtin-names.ts";
import type { AgentBehavior } from "../config/schema/session.ts";
import type { TrustStore } from "../providers/tls.ts";
import { editToolFor, resolveEditFormat } from "./edit.ts";
import { globTool } from "./glob.ts";
import type { PlanItem } from "../protocol/plan.ts";
import { createPlanTool } from "./plan.ts";
import { grepTool } from "./grep.ts";
import { createReadTool } from "./read.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";
import { createShellTool } from "./shell.ts";
import type { ShellEnvSource } from "./shell-env.ts";
import { toolJsonSchema, type Tool } from "./tool.ts";
import { createWebFetchTool } from "./web-fetch.ts";
import type { WebSettings } from "./web-http.ts";
import { createWebSearchTool, hasSearchProvider, type SearchSettings } from "./web-search.ts";
import { writeTool } from "./write.ts";

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ToolRegistryOptions {
  /** The model's `edit_format` (null: exact replacement). Also switches read to hashline output. */
  editFormat: string | null;
  /** The name the patch form goes by: `apply_patch` for models trained on it (OpenAI's), else `edit`. */
  patchName?: "edit" | "apply_patch";
  /** `daemon.disabled_tools`. */
  disabledTools?: readonly string[];
  /** Tools implemented elsewhere (progress_update, exit_tool, tool_search, MCP). */
  extraTools?: readonly Tool[];
  /** Where the `plan` tool's checklist goes (the session records it); without it `plan` is not offered. */
  onPlan?: (items: PlanItem[]) => void;
  /** What `shell`, `web_fetch` and `web_search` need; without it those three are not offered. */
  session?: SessionToolOptions;
}

/** Session-scoped inputs of the tools that hold state or reach the network. */
export interface SessionToolOptions {
  projectRoot: string;
  /** `agent_behavior.shell`. */
  shell: Static<typeof AgentBehavior>["shell"];
  /** The shell's environment (default: the daemon's minus credential-looking variables). */
  shellEnv?: ShellEnvSource;
  /** `daemon.web`. */
  web?: WebSettings | null;
  /** The loaded `daemon.tls.trust_store`. */
  trustStore?: TrustStore | null;
  /** `integrations.search`. */
  search?: SearchSettings | null;
  /** Where tools keep whole outputs over their cap (the session dir's `tool-output/`). */
  outputDir?: string;
  /** For `integrations.search.strategy: random`. */
  random?: () => number;
  /** Where shell commands run (src/sandbox); null or absent: unconfined. */
  sandbox?: Sandbox | null;
}

export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  /** Problems worth one log line each (a required tool listed as disabled, an unknown edit format). */
  readonly warnings: string[] = [];
  private readonly disabled: Set<string>;

  constructor(disabledTools: readonly string[] = []) {
    const required = new Set<string>(REQUIRED_TOOL_NAMES);
    this.disabled = new Set(disabledTools.filter((name) => !required.has(name)));
    for (const name of disabledTools) {
      if (required.has(name)) this.warnings.push(`daemon.disabled_tools lists "${name}", which the agent loop needs; it stays enabled.`);
    }
  }

  /** Adds a tool unless it is disabled; a second tool with the same name is a programming error. */
  register(tool: Tool): void {
    if (this.tools.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
    if (!this.disabled.has(tool.name)) this.tools.set(tool.name, tool);
  }

  isDisabled(name: string): boolean {
    return this.disabled.has(name);
  }

  /** Ends what the session's tools hold (the shell process); the engine calls it when the session ends. */
  async close(): Promise<void> {
    await Promise.all(this.list().map((t) => (t as Partial<{ close(): Promise<void> }>).close?.()));
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  list(): Tool[] {
    return [...this.tools.values()];
  }

  /** What the model is told about each tool. */
  definitions(): ToolDefinition[] {
    return this.list().map((t) => ({ name: t.name, description: t.description, inputSchema: toolJsonSchema(t) }));
  }
}

export function createToolRegistry(options: ToolRegistryOptions): ToolRegistry {
  const registry = new ToolRegistry(options.disabledTools);
  const { format, warning } = resolveEditFormat(options.editFormat);
  if (warning) registry.warnings.push(warning);
  const session = options.session;
  // The shell is built only when offered: a disabled shell never starts a process.
  if (session && !registry.isDisabled("shell")) {
    registry.register(
      createShellTool({
        command: session.shell.command,
        initScript: session.shell.init_script ?? null,
        projectRoot: session.projectRoot,
        env: session.shellEnv,
        ...(session.outputDir ? { outputDir: session.outputDir } : {}),
        sandbox: session.sandbox ?? null,
      }),
    );
  }
  for (const tool of [createReadTool({ hashline: format === "hashline" }), writeTool, editToolFor(format, options.patchName), globTool, grepTool]) {
    registry.register(tool);
  }
  if (session) {
    const http = { web: session.web, trustStore: session.trustStore };
    registry.register(createWebFetchTool(http));
    // Offered only with a search provider to ask: a tool that can only fail costs every request its definition.
    if (hasSearchProvider(session.search)) registry.register(createWebSearchTool({ ...http, search: session.search, random: session.random }));
  }
  if (options.onPlan) registry.register(createPlanTool(options.onPlan));
  for (const tool of options.extraTools ?? []) registry.register(tool);
  return registry;
}
