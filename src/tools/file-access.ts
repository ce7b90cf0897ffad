// Reading a file for change and writing it back: the checks and messages write and edit share.
import { statSync } from "node:fs";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { isBinary } from "./file-content.ts";
import { blockedMessage, createBlockChecker } from "./agentblock.ts";
import { displayPath, resolveToolPath, writeRefusal } from "./paths.ts";
import type { ToolContext } from "./tool.ts";

export interface Target {
  absolute: string;
  shown: string;
}

export type Loaded = { ok: true; text: string; mode: number } | { ok: false; message: string };

/** Resolves a path a tool wants to change; a string is the refusal to give the model. */
export function target(ctx: ToolContext, path: string): Target | string {
  const absolute = resolveToolPath(ctx, path);
  const shown = displayPath(ctx, absolute);
  const refusal = writeRefusal(ctx, absolute, shown);
  if (refusal) return refusal;
  const blockedBy = createBlockChecker(ctx.projectRoot)(absolute);
  return blockedBy ? blockedMessage(shown, blockedBy, ctx.projectRoot) : { absolute, shown };
}

/** The lock key of a tool that writes one file: calls on the same file run one at a time. */
export function fileLock(input: { path: string }, ctx: ToolContext): string | undefined {
  const t = target(ctx, input.path);
  return typeof t === "string" ? undefined : `file:${t.absolute}`;
}

/** The text of an existing file about to be edited. */
export async function loadForEdit(t: Target): Promise<Loaded> {
  let stat;
  try {
    stat = statSync(t.absolute);
  } catch {
    return { ok: false, message: `No such file: \`${t.shown}\`. Use \`write\` to create a new file, or \`glob\` to find the right path.` };
  }
  if (stat.isDirectory()) return { ok: false, message: `\`${t.shown}\` is a directory, not a file.` };
  const bytes = new Uint8Array(await Bun.file(t.absolute).arrayBuffer());
  if (isBinary(bytes)) return { ok: false, message: `\`${t.shown}\` is a binary file; only text files can be edited.` };
  return { ok: true, text: new TextDecoder().decode(bytes), mode: stat.mode & 0o777 };
}

/** Atomically writes and reports the mutation (which also invalidates the file catalog). */
export function save(ctx: ToolContext, absolute: string, text: string, mode?: number): void {
  writeFileAtomic(absolute, text, mode);
  ctx.onFileMutated(absolute);
}

export function countLines(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}
