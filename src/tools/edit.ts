// The `edit` tool a model gets, chosen by its `edit_format` (and, for the patch form, by the names its
// family is trained on).
import { applyPatchTool } from "./edit/apply-patch.ts";
import { hashlineEditTool } from "./edit/hashline.ts";
import { patchEditTool } from "./edit/patch.ts";
import { replaceEditTool } from "./edit/replace.ts";
import type { Tool } from "./tool.ts";

export const EDIT_FORMATS = ["replace", "patch", "hashline"] as const;
export type EditFormat = (typeof EDIT_FORMATS)[number];

/** Other spellings models' configs use for the same formats. */
const ALIASES: Record<string, EditFormat> = {
  replace: "replace",
  str_replace: "replace",
  exact: "replace",
  patch: "patch",
  apply_patch: "patch",
  diff: "patch",
  unified_diff: "patch",
  udiff: "patch",
  hashline: "hashline",
};

/**
 * The format for a model's `edit_format`: null means exact replacement; an unknown name also falls back to
 * it, with a warning the caller should log once.
 */
export function resolveEditFormat(editFormat: string | null | undefined): { format: EditFormat; warning?: string } {
  if (editFormat === null || editFormat === undefined || editFormat === "") return { format: "replace" };
  const format = ALIASES[editFormat.toLowerCase()];
  if (format) return { format };
  return {
    format: "replace",
    warning: `edit_format "${editFormat}" is not one of ${EDIT_FORMATS.join(", ")}; the model gets exact string replacement.`,
  };
}

/**
 * `patchName`: what the patch form is called. OpenAI's models are trained on `apply_patch` with one
 * `input` string; others get `edit` with `patch`.
 */
export function editToolFor(editFormat: string | null | undefined, patchName: "edit" | "apply_patch" = "edit"): Tool {
  const { format } = resolveEditFormat(editFormat);
  if (format === "patch") return patchName === "apply_patch" ? applyPatchTool : patchEditTool;
  if (format === "hashline") return hashlineEditTool;
  return replaceEditTool;
}
