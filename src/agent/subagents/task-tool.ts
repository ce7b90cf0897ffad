// `task`: the delegation tool. The model names a subagent and gives it a complete task; the subagent's
// report is the result. Its description lists the subagents the session can start.
import { Type } from "@sinclair/typebox";
import { DELEGATION_TOOL_NAME } from "../../config/builtin-names.ts";
import { defineTool, type ToolResult } from "../../tools/tool.ts";
import type { SubagentDefinition } from "./definitions.ts";
import description from "./task-tool.txt" with { type: "text" };

export const TaskInput = Type.Object(
  {
    subagent: Type.String({ minLength: 1, description: "Which subagent runs the task: one of the names listed in this tool's description." }),
    description: Type.String({ minLength: 1, maxLength: 100, description: "A short label for the task (3 to 8 words), shown to the user while it runs." }),
    prompt: Type.String({
      minLength: 1,
      description: "The complete task for the subagent: goal, context, constraints, and what its report should contain. It sees nothing else of this conversation.",
    }),
  },
  { additionalProperties: false },
);

export interface TaskRequest {
  subagent: string;
  description: string;
  prompt: string;
  /** The id of this `task` call in the parent's conversation. */
  callId: string;
}

export function createTaskTool(definitions: readonly SubagentDefinition[], delegate: (request: TaskRequest, signal: AbortSignal) => Promise<ToolResult>) {
  const list = definitions.map((d) => `- ${d.name}: ${d.description}`).join("\n");
  return defineTool({
    name: DELEGATION_TOOL_NAME,
    description: `${description.trim()}\n\nSubagents:\n${list}`,
    inputSchema: TaskInput,
    run: (input, ctx, signal) => delegate({ ...input, callId: ctx.callId ?? "" }, signal),
  });
}
