// `progress_update`: a one-line status for the user during long work; the engine shows it as an event.
import { Type } from "@sinclair/typebox";
import { defineTool } from "./tool.ts";
import description from "./progress-update.txt" with { type: "text" };

export const PROGRESS_TEXT_MAX = 200;

export function createProgressUpdateTool(onProgress: (text: string) => void) {
  return defineTool({
    name: "progress_update",
    description,
    inputSchema: Type.Object({ text: Type.String({ minLength: 1, maxLength: PROGRESS_TEXT_MAX, description: "The status line." }) }, { additionalProperties: false }),
    async run(input) {
      onProgress(input.text.replace(/\s+/g, " ").trim());
      return { output: "Shown to the user." };
    },
  });
}
