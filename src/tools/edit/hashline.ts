// Edit format "hashline": lines addressed as `lineno:hash` from read's hashline output.
import { Type } from "@sinclair/typebox";
import { loadForEdit, save, fileLock, target } from "../file-access.ts";
import { clip, lineHash, splitLines, usesCrlf } from "../file-content.ts";
import { defineTool, toolError } from "../tool.ts";
import { displayDiff } from "./display-diff.ts";
import description from "./hashline.txt" with { type: "text" };

const HashlineEdit = Type.Object(
  {
    op: Type.Union([Type.Literal("replace"), Type.Literal("insert_after"), Type.Literal("delete")]),
    start: Type.String({ description: "`lineno:hash` address from read (\"0\" with insert_after: top of file)." }),
    end: Type.Optional(Type.String({ description: "Last line of the range, `lineno:hash` (default: start)." })),
    content: Type.Optional(Type.String({ description: "New lines (replace, insert_after)." })),
  },
  { additionalProperties: false },
);

export const HashlineInput = Type.Object(
  {
    path: Type.String({ minLength: 1, description: "File to edit: absolute, or relative to the working directory." }),
    edits: Type.Array(HashlineEdit, { minItems: 1 }),
  },
  { additionalProperties: false },
);

const ADDRESS = /^(\d+):([0-9a-f]{3})$/;
const PREFIXED = /^\d+:[0-9a-f]{3}\| /;

interface Planned {
  index: number;
  /** 0-based first line replaced, and how many lines are removed (0 for an insertion). */
  from: number;
  count: number;
  lines: string[];
}

/** Ranges that share a line, an insertion inside a replaced range, or two insertions at one spot. */
function conflict(a: Planned, b: Planned): boolean {
  if (a.count > 0 && b.count > 0) return a.from < b.from + b.count && b.from < a.from + a.count;
  if (a.count === 0 && b.count === 0) return a.from === b.from;
  const [insert, range] = a.count === 0 ? [a, b] : [b, a];
  return insert.from > range.from && insert.from < range.from + range.count;
}

function contentLines(content: string): string[] {
  return content.replace(/\r?\n$/, "").split(/\r?\n/);
}

export const hashlineEditTool = defineTool({
  name: "edit",
  description,
  inputSchema: HashlineInput,
  exclusive: fileLock,
  async run(input, ctx) {
    const t = target(ctx, input.path);
    if (typeof t === "string") return toolError(t);
    const loaded = await loadForEdit(t);
    if (!loaded.ok) return toolError(loaded.message);
    const lines = splitLines(loaded.text);
    const addr = (i: number) => `${i + 1}:${lineHash(lines[i]!)}`;

    const resolve = (which: string, ref: string, n: number, allowTop: boolean): number | string => {
      if (allowTop && ref === "0") return 0;
      const m = ADDRESS.exec(ref);
      if (!m) return `edit ${n}: ${which} "${ref}" is not a \`lineno:hash\` address like "12:a3f" (copy it from read's output).`;
      const line = Number(m[1]);
      if (line < 1 || line > lines.length) {
        return `edit ${n}: ${which} "${ref}" is past the end of \`${t.shown}\`, which has ${lines.length} lines. Read the file again.`;
      }
      const actual = lineHash(lines[line - 1]!);
      if (actual === m[2]) return line;
      const moved = lines.map((l, i) => (lineHash(l) === m[2] ? i + 1 : 0)).filter((i) => i > 0 && Math.abs(i - line) <= 100);
      const hint = moved.length > 0 ? ` A line with hash ${m[2]} is now at line ${moved.join(", ")}.` : "";
      return (
        `edit ${n}: ${which} "${ref}" no longer matches: line ${line} is now ${addr(line - 1)}| ${clip(lines[line - 1]!)}.` +
        `${hint} The file changed since you read it; read it again and use the new addresses. No edits were applied.`
      );
    };

    const planned: Planned[] = [];
    for (const [i, edit] of input.edits.entries()) {
      const n = i + 1;
      const start = resolve("start", edit.start, n, edit.op === "insert_after");
      if (typeof start === "string") return toolError(start);
      if (edit.op !== "delete" && edit.content === undefined) return toolError(`edit ${n}: op "${edit.op}" needs \`content\`.`);
      if (edit.op === "delete" && edit.content !== undefined) return toolError(`edit ${n}: op "delete" takes no \`content\`; use op "replace" to change lines.`);
      const newLines = edit.content === undefined ? [] : contentLines(edit.content);
      if (newLines.length > 0 && newLines.every((l) => PREFIXED.test(l))) {
        return toolError(`edit ${n}: \`content\` lines start with \`lineno:hash| \` prefixes; give the bare file text without them.`);
      }
      if (edit.op === "insert_after") {
        if (edit.end !== undefined) return toolError(`edit ${n}: op "insert_after" takes no \`end\`.`);
        planned.push({ index: n, from: start, count: 0, lines: newLines });
        continue;
      }
      let end = start;
      if (edit.end !== undefined) {
        const e = resolve("end", edit.end, n, false);
        if (typeof e === "string") return toolError(e);
        if (e < start) return toolError(`edit ${n}: end (line ${e}) comes before start (line ${start}).`);
        end = e;
      }
      planned.push({ index: n, from: start - 1, count: end - start + 1, lines: newLines });
    }

    for (const [i, a] of planned.entries()) {
      for (const b of planned.slice(i + 1)) {
        if (conflict(a, b)) return toolError(`edits ${a.index} and ${b.index} overlap; merge them into one edit.`);
      }
    }
    planned.sort((a, b) => a.from - b.from || a.count - b.count);

    const out = [...lines];
    const changed: { from: number; length: number }[] = [];
    let shift = 0;
    for (const p of planned) {
      out.splice(p.from + shift, p.count, ...p.lines);
      changed.push({ from: p.from + shift, length: p.lines.length });
      shift += p.lines.length - p.count;
    }
    const eol = usesCrlf(loaded.text) ? "\r\n" : "\n";
    const trailing = loaded.text === "" || /\n$/.test(loaded.text) ? eol : "";
    const after = out.length === 0 ? "" : out.join(eol) + trailing;
    save(ctx, t.absolute, after, loaded.mode);

    const shown: string[] = [];
    for (const c of changed) {
      const from = Math.max(0, c.from - 1);
      const to = Math.min(out.length, c.from + c.length + 1);
      if (shown.length > 0) shown.push("...");
      for (let i = from; i < to && shown.length < 200; i++) shown.push(`${i + 1}:${lineHash(out[i]!)}| ${out[i]}`);
    }
    return {
      output: `Edited \`${t.shown}\`: ${planned.length} edit${planned.length === 1 ? "" : "s"} applied. Changed lines with their new addresses:\n${shown.join("\n")}`,
      metadata: { path: t.absolute, edits: planned.length, diff: displayDiff(loaded.text, after) },
    };
  },
});
