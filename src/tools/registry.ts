// The tools a conversation offers: the built-ins this folder implements, tools other parts register,
// minus `daemon.disabled_tools` (the required tools stay, with a warning).
import { REQUIRED_TOOL_NAMES } from "../config/builtin-names.ts";
import { editToolFor, resolveEditFormat } from "./edit.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { createReadTool } from "./read.ts";
import { toolJsonSchema, type Tool } from "./tool.ts";
import { writeTool } from "./write.ts";

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ToolRegistryOptions {
  /** The model's `edit_format` (null: exact replacement). Also switches read to hashline output. */
  editFormat: string | null;
  /** `daemon.disabled_tools`. */
  disabledTools?: readonly string[];
  /** Tools implemented elsewhere (shell, web, progress_update, exit_tool, tool_search, MCP). */
  extraTools?: readonly Tool[];
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
  for (const tool of [createReadTool({ hashline: format === "hashline" }), writeTool, editToolFor(format), globTool, grepTool]) {
    registry.register(tool);
  }
  for (const tool of options.extraTools ?? []) registry.register(tool);
  return registry;
}
