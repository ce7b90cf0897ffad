// `exit_tool`: ends the turn after the current round of tool calls (the turn loop checks for it).
import { Type } from "@sinclair/typebox";
import { defineTool } from "./tool.ts";
import description from "./exit-tool.txt" with { type: "text" };

export const exitTool = defineTool({
  name: "exit_tool",
  description,
  inputSchema: Type.Object({ summary: Type.Optional(Type.String({ maxLength: 500, description: "One line: the outcome." })) }, { additionalProperties: false }),
  async run(input) {
    return { output: "The turn ends after this round.", metadata: input.summary ? { summary: input.summary } : {} };
  },
});
