// `apply_patch`: the patch form as OpenAI's models are trained to call it, a function with one `input`
// string holding the whole `*** Begin Patch` envelope (openai/codex, codex-rs: the apply_patch function
// tool). Same parser and checks as the patch-form `edit`; its permission check is that `edit`'s, so
// `edit(...)` rules govern it, file by file.
import { Type } from "@sinclair/typebox";
import { defineTool } from "../tool.ts";
import description from "./apply-patch.txt" with { type: "text" };
import { patchEditTool } from "./patch.ts";

export const ApplyPatchInput = Type.Object(
  { input: Type.String({ minLength: 1, description: "The entire patch, from *** Begin Patch to *** End Patch." }) },
  { additionalProperties: false },
);

export const applyPatchTool = defineTool({
  name: "apply_patch",
  description,
  inputSchema: ApplyPatchInput,
  exclusive: () => "edit:patch",
  permissionAs: (input) => ({ tool: "edit", input: { patch: input.input } }),
  run: (input, ctx, signal) => patchEditTool.run({ patch: input.input }, ctx, signal),
});
