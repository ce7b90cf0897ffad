// `write`: create or replace a whole file, atomically, inside the project.
import { readFileSync, statSync } from "node:fs";
import { Type } from "@sinclair/typebox";
import { countLines, save, fileLock, target } from "./file-access.ts";
import { displayDiff } from "./edit/display-diff.ts";
import { defineTool, toolError } from "./tool.ts";

/** A file over this size is overwritten without a diff for the screen. */
const DIFF_MAX_BYTES = 512 * 1024;
/** An overwritten file up to this size is kept whole in the metadata (`old_text`: editors diff the whole file). */
const OLD_TEXT_MAX_BYTES = 64 * 1024;
import description from "./write.txt" with { type: "text" };

export const WriteInput = Type.Object(
  {
    path: Type.String({ minLength: 1, description: "File to write: absolute, or relative to the working directory." }),
    content: Type.String({ description: "The complete new content of the file." }),
  },
  { additionalProperties: false },
);

export const writeTool = defineTool({
  name: "write",
  description,
  inputSchema: WriteInput,
  exclusive: fileLock,
  async run(input, ctx) {
    const t = target(ctx, input.path);
    if (typeof t === "string") return toolError(t);
    let existed = false;
    let mode: number | undefined;
    try {
      const stat = statSync(t.absolute);
      if (stat.isDirectory()) return toolError(`\`${t.shown}\` is a directory; give a file path inside it.`);
      existed = true;
      mode = stat.mode & 0o777;
    } catch {
      existed = false;
    }
    // What the file held, for the diff a person sees (not for files too large to compare usefully).
    const before = existed && statSync(t.absolute).size <= DIFF_MAX_BYTES ? readFileSync(t.absolute, "utf8") : existed ? null : "";
    save(ctx, t.absolute, input.content, mode);
    const bytes = Buffer.byteLength(input.content);
    const lines = countLines(input.content);
    return {
      output: `${existed ? "Overwrote" : "Created"} \`${t.shown}\`: ${lines} line${lines === 1 ? "" : "s"}, ${bytes} byte${bytes === 1 ? "" : "s"}.`,
      metadata: { path: t.absolute, created: !existed, bytes, lines, ...(before !== null ? { diff: displayDiff(before, input.content) } : {}), ...(existed && before !== null && Buffer.byteLength(before) <= OLD_TEXT_MAX_BYTES ? { old_text: before } : {}) },
    };
  },
});
