// Edit format "patch": apply-patch envelopes or unified diffs, validated in full before any file changes.
import { existsSync, rmSync } from "node:fs";
import { Type } from "@sinclair/typebox";
import { loadForEdit, save, target, type Target } from "../file-access.ts";
import { clip, closestLine, splitLines, usesCrlf } from "../file-content.ts";
import { defineTool, toolError } from "../tool.ts";
import { displayDiff, type DisplayDiff } from "./display-diff.ts";
import { parsePatch, PatchSyntaxError, type FileOp, type Hunk } from "./patch-parse.ts";
import description from "./patch.txt" with { type: "text" };

export const PatchInput = Type.Object(
  { patch: Type.String({ minLength: 1, description: "The patch text (apply-patch envelope or unified diff)." }) },
  { additionalProperties: false },
);

class HunkFailure extends Error {}

const LOOSENESS: ((s: string) => string)[] = [(s) => s, (s) => s.trimEnd(), (s) => s.trim()];

/** First index >= from where `seq` matches, trying exact, then trailing-space-blind, then trim-blind. */
function seek(lines: readonly string[], seq: readonly string[], from: number, endOfFile: boolean): number {
  for (const norm of LOOSENESS) {
    const want = seq.map(norm);
    const matches = (i: number) => want.every((w, j) => norm(lines[i + j]!) === w);
    if (endOfFile) {
      const i = lines.length - seq.length;
      if (i >= from && matches(i)) return i;
    }
    for (let i = from; i + seq.length <= lines.length; i++) if (matches(i)) return i;
  }
  return -1;
}

function applyHunks(path: string, text: string, hunks: readonly Hunk[]): string {
  const lines = splitLines(text);
  const edits: { at: number; remove: number; insert: string[] }[] = [];
  let cursor = 0;
  for (const hunk of hunks) {
    const name = `hunk ${hunk.number} of ${path} (patch line ${hunk.patchLine})`;
    if (hunk.header !== undefined) {
      const h = seek(lines, [hunk.header], cursor, false);
      if (h === -1) {
        const best = closestLine(lines, hunk.header);
        const near = best && best.score >= 0.3 ? ` The closest line is ${best.line}: ${clip(best.text)}` : "";
        throw new HunkFailure(`${name}: the @@ line "${clip(hunk.header)}" was not found after line ${cursor}.${near}`);
      }
      cursor = h + 1;
    }
    if (hunk.old.length === 0) {
      const at = hunk.header !== undefined ? cursor : lines.length;
      edits.push({ at, remove: 0, insert: hunk.new });
      continue;
    }
    let at = seek(lines, hunk.old, cursor, hunk.endOfFile);
    if (at === -1 && cursor > 0) at = seek(lines, hunk.old, 0, hunk.endOfFile);
    if (at === -1) {
      const probe = hunk.old.find((l) => l.trim() !== "") ?? hunk.old[0]!;
      const best = closestLine(lines, probe);
      const near = best && best.score >= 0.3 ? ` The closest line to "${clip(probe)}" is ${best.line}: ${clip(best.text)}` : "";
      throw new HunkFailure(
        `${name}: its ${hunk.old.length} context and removed lines were not found in the file.${near} ` +
          "Read the file again and copy the context lines exactly.",
      );
    }
    if (edits.some((e) => at < e.at + e.remove && e.at < at + hunk.old.length)) {
      throw new HunkFailure(`${name}: it overlaps an earlier hunk; merge the two hunks.`);
    }
    edits.push({ at, remove: hunk.old.length, insert: hunk.new });
    cursor = at + hunk.old.length;
  }
  edits.sort((a, b) => b.at - a.at);
  for (const e of edits) lines.splice(e.at, e.remove, ...e.insert);
  const eol = usesCrlf(text) ? "\r\n" : "\n";
  return lines.length === 0 ? "" : lines.join(eol) + eol;
}

interface Planned {
  summary: string;
  write?: { target: Target; text: string; mode?: number };
  remove?: Target;
  /** The change to the file for a person's screen (what it held, then what it will hold). */
  diff: DisplayDiff;
}

async function plan(ctx: Parameters<typeof target>[0], op: FileOp, claimed: Set<string>): Promise<Planned[]> {
  const t = target(ctx, op.path);
  if (typeof t === "string") throw new HunkFailure(t);
  const claim = (x: Target) => {
    if (claimed.has(x.absolute)) throw new HunkFailure(`${x.shown} appears in more than one section of the patch; combine them.`);
    claimed.add(x.absolute);
  };
  claim(t);
  if (op.kind === "add") {
    if (existsSync(t.absolute)) throw new HunkFailure(`Add File ${t.shown}: the file already exists; use "*** Update File:" to change it.`);
    const text = op.lines.length === 0 ? "" : `${op.lines.join("\n")}\n`;
    return [{ summary: `A ${t.shown} (${op.lines.length} lines)`, write: { target: t, text }, diff: displayDiff("", text) }];
  }
  const loaded = await loadForEdit(t);
  if (!loaded.ok) throw new HunkFailure(`${op.kind === "delete" ? "Delete" : "Update"} File ${t.shown}: ${loaded.message}`);
  if (op.kind === "delete") return [{ summary: `D ${t.shown}`, remove: t, diff: displayDiff(loaded.text, "") }];
  const text = applyHunks(t.shown, loaded.text, op.hunks);
  if (op.moveTo === undefined) return [{ summary: `M ${t.shown} (${op.hunks.length} hunk${op.hunks.length === 1 ? "" : "s"})`, write: { target: t, text, mode: loaded.mode }, diff: displayDiff(loaded.text, text) }];
  const dest = target(ctx, op.moveTo);
  if (typeof dest === "string") throw new HunkFailure(dest);
  claim(dest);
  if (existsSync(dest.absolute)) throw new HunkFailure(`Move to ${dest.shown}: that file already exists.`);
  return [{ summary: `R ${t.shown} -> ${dest.shown}`, write: { target: dest, text, mode: loaded.mode }, remove: t, diff: displayDiff(loaded.text, text) }];
}

export const patchEditTool = defineTool({
  name: "edit",
  description,
  inputSchema: PatchInput,
  exclusive: () => "edit:patch",
  async run(input, ctx) {
    let ops: FileOp[];
    try {
      ops = parsePatch(input.patch);
    } catch (error) {
      if (error instanceof PatchSyntaxError) return toolError(`The patch could not be parsed: ${error.message} Nothing was changed.`);
      throw error;
    }
    const planned: Planned[] = [];
    const claimed = new Set<string>();
    try {
      for (const op of ops) planned.push(...(await plan(ctx, op, claimed)));
    } catch (error) {
      if (error instanceof HunkFailure) return toolError(`${error.message}\nNothing was changed.`);
      throw error;
    }
    for (const p of planned) {
      if (p.write) save(ctx, p.write.target.absolute, p.write.text, p.write.mode);
      if (p.remove) {
        rmSync(p.remove.absolute);
        ctx.onFileMutated(p.remove.absolute);
      }
    }
    return {
      output: `Applied the patch:\n${planned.map((p) => p.summary).join("\n")}`,
      // One file: its diff, as the other edit forms give it; several: each file's diff with its path.
      metadata: {
        files: planned.map((p) => p.write?.target.absolute ?? p.remove?.absolute),
        ...(planned.length === 1 ? { diff: planned[0]!.diff } : { diffs: planned.map((p) => ({ path: p.write?.target.shown ?? p.remove?.shown, ...p.diff })) }),
      },
    };
  },
});
