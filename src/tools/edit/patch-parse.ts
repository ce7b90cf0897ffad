// Parses the two patch dialects the `patch` edit format accepts: the apply-patch envelope
// (`*** Begin Patch` / `*** Add|Update|Delete File:`) and a plain unified diff (`---`/`+++`/`@@`).

export interface Hunk {
  /** 1-based number of this hunk within its file section. */
  number: number;
  /** 1-based line of the patch text where the hunk starts (for messages). */
  patchLine: number;
  /** An `@@ text` context line to find first (apply-patch dialect). */
  header?: string;
  old: string[];
  new: string[];
  /** `*** End of File`: the old lines end the file. */
  endOfFile: boolean;
}

export type FileOp =
  | { kind: "add"; path: string; lines: string[] }
  | { kind: "delete"; path: string }
  | { kind: "update"; path: string; moveTo?: string; hunks: Hunk[] };

export class PatchSyntaxError extends Error {}

function fail(line: number, message: string): never {
  throw new PatchSyntaxError(`patch line ${line}: ${message}`);
}

/** Applies a body line (' ', '-', '+' or empty) to a hunk; false when the line is not a body line. */
function bodyLine(hunk: Hunk, line: string): boolean {
  if (line === "") {
    hunk.old.push("");
    hunk.new.push("");
    return true;
  }
  const tag = line[0];
  const text = line.slice(1);
  if (tag === " ") {
    hunk.old.push(text);
    hunk.new.push(text);
  } else if (tag === "-") hunk.old.push(text);
  else if (tag === "+") hunk.new.push(text);
  else return false;
  return true;
}

export function parseApplyPatch(text: string): FileOp[] {
  const lines = text.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === "") i++;
  if (lines[i]?.trim() !== "*** Begin Patch") fail(i + 1, 'the patch must start with "*** Begin Patch".');
  i++;
  const ops: FileOp[] = [];
  let ended = false;
  while (i < lines.length) {
    const line = lines[i]!;
    const at = i + 1;
    if (line.trim() === "*** End Patch") {
      ended = true;
      break;
    }
    let m: RegExpExecArray | null;
    if ((m = /^\*\*\* Add File: (.+)$/.exec(line))) {
      const added: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.startsWith("***")) {
        if (!lines[i]!.startsWith("+")) fail(i + 1, `every line of an added file starts with "+", got: ${lines[i]}`);
        added.push(lines[i]!.slice(1));
        i++;
      }
      ops.push({ kind: "add", path: m[1]!.trim(), lines: added });
    } else if ((m = /^\*\*\* Delete File: (.+)$/.exec(line))) {
      ops.push({ kind: "delete", path: m[1]!.trim() });
      i++;
    } else if ((m = /^\*\*\* Update File: (.+)$/.exec(line))) {
      const op: Extract<FileOp, { kind: "update" }> = { kind: "update", path: m[1]!.trim(), hunks: [] };
      i++;
      const move = /^\*\*\* Move to: (.+)$/.exec(lines[i] ?? "");
      if (move) {
        op.moveTo = move[1]!.trim();
        i++;
      }
      let hunk: Hunk | undefined;
      while (i < lines.length) {
        const l = lines[i]!;
        if (l === "*** End of File") {
          if (!hunk) fail(i + 1, '"*** End of File" must follow a hunk.');
          hunk.endOfFile = true;
          i++;
          continue;
        }
        if (l.startsWith("***")) break;
        if (l.startsWith("@@")) {
          const header = l.slice(2).trim();
          hunk = { number: op.hunks.length + 1, patchLine: i + 1, old: [], new: [], endOfFile: false };
          if (header !== "") hunk.header = header;
          op.hunks.push(hunk);
        } else {
          if (!hunk) {
            hunk = { number: 1, patchLine: i + 1, old: [], new: [], endOfFile: false };
            op.hunks.push(hunk);
          }
          if (!bodyLine(hunk, l)) fail(i + 1, `a hunk line must start with " ", "-" or "+", got: ${l}`);
        }
        i++;
      }
      if (op.hunks.length === 0 && !op.moveTo) fail(at, `"*** Update File: ${op.path}" has no hunks.`);
      ops.push(op);
    } else if (line.trim() === "") {
      i++;
    } else {
      fail(at, `expected "*** Add File:", "*** Update File:", "*** Delete File:" or "*** End Patch", got: ${line}`);
    }
  }
  if (!ended) fail(lines.length, 'the patch must end with "*** End Patch".');
  if (ops.length === 0) fail(1, "the patch changes no files.");
  return ops;
}

function diffPath(raw: string): string | undefined {
  const path = raw.replace(/\t.*$/, "").trim();
  if (path === "/dev/null") return undefined;
  return path.replace(/^[ab]\//, "");
}

export function parseUnifiedDiff(text: string): FileOp[] {
  const lines = text.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  const ops: FileOp[] = [];
  let i = 0;
  while (i < lines.length) {
    if (!lines[i]!.startsWith("--- ")) {
      i++;
      continue;
    }
    const from = diffPath(lines[i]!.slice(4));
    if (!lines[i + 1]?.startsWith("+++ ")) fail(i + 2, 'expected a "+++ " line after the "--- " line.');
    const to = diffPath(lines[i + 1]!.slice(4));
    i += 2;
    const hunks: Hunk[] = [];
    while (i < lines.length && lines[i]!.startsWith("@@")) {
      const m = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(lines[i]!);
      if (!m) fail(i + 1, `malformed hunk header, expected "@@ -a,b +c,d @@": ${lines[i]}`);
      const hunk: Hunk = { number: hunks.length + 1, patchLine: i + 1, old: [], new: [], endOfFile: false };
      let oldLeft = m[1] === undefined ? 1 : Number(m[1]);
      let newLeft = m[2] === undefined ? 1 : Number(m[2]);
      i++;
      while (i < lines.length && (oldLeft > 0 || newLeft > 0)) {
        const l = lines[i]!;
        if (l.startsWith("\\")) {
          i++;
          continue;
        }
        if (!bodyLine(hunk, l)) fail(i + 1, `hunk ${hunk.number} ends early: expected ${oldLeft} more old and ${newLeft} more new lines, got: ${l}`);
        if (l === "" || l[0] === " ") {
          oldLeft--;
          newLeft--;
        } else if (l[0] === "-") oldLeft--;
        else newLeft--;
        i++;
      }
      if (oldLeft > 0 || newLeft > 0) fail(i, `hunk ${hunk.number} ends early: the patch ran out of lines.`);
      while (lines[i]?.startsWith("\\")) i++;
      hunks.push(hunk);
    }
    if (from === undefined && to === undefined) fail(i, "a file section cannot be /dev/null on both sides.");
    if (from === undefined) ops.push({ kind: "add", path: to!, lines: hunks.flatMap((h) => h.new) });
    else if (to === undefined) ops.push({ kind: "delete", path: from });
    else ops.push(from === to ? { kind: "update", path: from, hunks } : { kind: "update", path: from, moveTo: to, hunks });
  }
  if (ops.length === 0) fail(1, 'found no file sections: start with "*** Begin Patch", or give a unified diff with "---"/"+++" lines.');
  return ops;
}

export function parsePatch(text: string): FileOp[] {
  return text.trimStart().startsWith("*** Begin Patch") ? parseApplyPatch(text) : parseUnifiedDiff(text);
}

/**
 * Every path a patch would touch, as written: each section's file (added, changed or deleted) and a
 * move's destination. The permission gate checks each; throws PatchSyntaxError as parsePatch does.
 */
export function patchPaths(text: string): string[] {
  return [...new Set(parsePatch(text).flatMap((op) => (op.kind === "update" && op.moveTo !== undefined ? [op.path, op.moveTo] : [op.path])))];
}
