// Edit format "replace" (the default): exact string replacement with precise failure messages.
import { existsSync } from "node:fs";
import { Type } from "@sinclair/typebox";
import { loadForEdit, save, fileLock, target } from "../file-access.ts";
import { clip, closestLine, lineAt, splitLines, usesCrlf } from "../file-content.ts";
import { defineTool, toolError } from "../tool.ts";
import { displayDiff } from "./display-diff.ts";
import description from "../edit.txt" with { type: "text" };

export const ReplaceInput = Type.Object(
  {
    path: Type.String({ minLength: 1, description: "File to edit: absolute, or relative to the working directory." }),
    old_string: Type.String({ description: "Exact text to replace; must occur exactly once unless replace_all." }),
    new_string: Type.String({ description: "Replacement text." }),
    replace_all: Type.Optional(Type.Boolean({ description: "Replace every occurrence (default false)." })),
  },
  { additionalProperties: false },
);

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) found.push(i);
  return found;
}

/** Where the old text's lines appear when whitespace is ignored: the 1-based first and last line. */
function looseMatch(lines: readonly string[], old: readonly string[]): { from: number; to: number } | undefined {
  const want = old.map((l) => l.trim().replace(/\s+/g, " "));
  while (want.length > 0 && want[want.length - 1] === "") want.pop();
  if (want.length === 0) return undefined;
  const norm = lines.map((l) => l.trim().replace(/\s+/g, " "));
  for (let i = 0; i + want.length <= norm.length; i++) {
    if (want.every((w, j) => norm[i + j] === w)) return { from: i + 1, to: i + want.length };
  }
  return undefined;
}

function notFound(text: string, old: string, shown: string): string {
  const lines = splitLines(text);
  const loose = looseMatch(lines, old.split(/\r?\n/));
  if (loose) {
    const excerpt = lines.slice(loose.from - 1, loose.to).map((l, i) => `${loose.from + i}| ${clip(l)}`).join("\n");
    return (
      `old_string was not found exactly in \`${shown}\`, but lines ${loose.from}-${loose.to} match when whitespace is ignored:\n` +
      `${excerpt}\nCopy these lines exactly (indentation and spaces included) into old_string and retry.`
    );
  }
  const probe = old.split(/\r?\n/).find((l) => l.trim() !== "") ?? old;
  const best = closestLine(lines, probe);
  if (!best || best.score < 0.3) {
    return `old_string was not found in \`${shown}\`, and no line resembles it. Read the file again; it may have changed.`;
  }
  return (
    `old_string was not found in \`${shown}\`; the closest line is ${best.line}: ${clip(best.text)}\n` +
    "Read the file around that line and copy the text exactly (indentation and spaces included)."
  );
}

export const replaceEditTool = defineTool({
  name: "edit",
  description,
  inputSchema: ReplaceInput,
  exclusive: fileLock,
  async run(input, ctx) {
    const t = target(ctx, input.path);
    if (typeof t === "string") return toolError(t);
    if (input.old_string === input.new_string) {
      return toolError("old_string and new_string are identical, so there is nothing to change. Give the new text in new_string.");
    }
    if (input.old_string === "") {
      if (existsSync(t.absolute)) {
        return toolError(`old_string is empty, but \`${t.shown}\` already exists. Quote the text to replace, or use \`write\` to replace the whole file.`);
      }
      save(ctx, t.absolute, input.new_string);
      return { output: `Created \`${t.shown}\`.`, metadata: { path: t.absolute, created: true, diff: displayDiff("", input.new_string) } };
    }
    const loaded = await loadForEdit(t);
    if (!loaded.ok) return toolError(loaded.message);
    let { old_string: old, new_string: replacement } = input;
    if (usesCrlf(loaded.text) && !old.includes("\r")) {
      old = old.replaceAll("\n", "\r\n");
      replacement = replacement.replaceAll("\n", "\r\n");
    }
    const found = occurrences(loaded.text, old);
    if (found.length === 0) return toolError(notFound(loaded.text, input.old_string, t.shown));
    const at = found.map((i) => lineAt(loaded.text, i));
    if (found.length > 1 && !input.replace_all) {
      return toolError(
        `old_string matches ${found.length} times in \`${t.shown}\`, at lines ${at.join(", ")}. ` +
          "Add surrounding lines to old_string so it matches once, or set replace_all: true to change every occurrence.",
      );
    }
    let out = "";
    let last = 0;
    for (const i of found) {
      out += loaded.text.slice(last, i) + replacement;
      last = i + old.length;
    }
    out += loaded.text.slice(last);
    save(ctx, t.absolute, out, loaded.mode);
    const where = found.length === 1 ? `1 replacement at line ${at[0]}` : `${found.length} replacements at lines ${at.join(", ")}`;
    return { output: `Edited \`${t.shown}\`: ${where}.`, metadata: { path: t.absolute, replacements: found.length, diff: displayDiff(loaded.text, out) } };
  },
});
