// The change a file edit made, as unified-diff hunks for a person's screen (the conversation view draws
// them with line numbers and context). Put in the tool result's metadata, which clients read and the
// model never sees. Line based: the common head and tail are cut first, the rest is an LCS diff (a plain
// remove-then-add when it is too large to compare), then grouped into hunks with `context` lines.

export interface DisplayHunk {
  /** 1-based first line of the hunk in the old and the new file. */
  old_start: number;
  new_start: number;
  /** Each line prefixed with " " (context), "-" (removed) or "+" (added). */
  lines: string[];
}

export interface DisplayDiff {
  hunks: DisplayHunk[];
  /** Lines left out past `maxLines`. */
  omitted?: number;
}

const MAX_COMPARE = 1_000_000;

function splitLines(text: string): string[] {
  if (text === "") return [];
  return text.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
}

type Op = { sign: " " | "-" | "+"; text: string };

function middleOps(a: string[], b: string[]): Op[] {
  if (a.length * b.length > MAX_COMPARE) return [...a.map((text): Op => ({ sign: "-", text })), ...b.map((text): Op => ({ sign: "+", text }))];
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ sign: " ", text: a[i++]! });
      j++;
    } else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) ops.push({ sign: "-", text: a[i++]! });
    else ops.push({ sign: "+", text: b[j++]! });
  }
  return ops;
}

export function displayDiff(before: string, after: string, context = 3, maxLines = 300): DisplayDiff {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const ops: Op[] = [
    ...a.slice(0, head).map((text): Op => ({ sign: " ", text })),
    ...middleOps(a.slice(head, a.length - tail), b.slice(head, b.length - tail)),
    ...a.slice(a.length - tail).map((text): Op => ({ sign: " ", text })),
  ];
  // Line numbers of each op in the old and new file.
  const hunks: DisplayHunk[] = [];
  let oldLine = 1;
  let newLine = 1;
  let current: DisplayHunk | null = null;
  let lastChange = -Infinity;
  let total = 0;
  let omitted = 0;
  const changeAt = ops.map((o) => o.sign !== " ");
  const nextChange: number[] = new Array(ops.length + 1).fill(Infinity);
  for (let k = ops.length - 1; k >= 0; k--) nextChange[k] = changeAt[k] ? k : nextChange[k + 1]!;
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k]!;
    const near = op.sign !== " " || k - lastChange <= context || nextChange[k]! - k <= context;
    if (near) {
      if (!current) {
        current = { old_start: oldLine, new_start: newLine, lines: [] };
        hunks.push(current);
      }
      if (total < maxLines) {
        current.lines.push(op.sign + op.text);
        total++;
      } else omitted++;
    } else current = null;
    if (op.sign !== " ") lastChange = k;
    if (op.sign !== "+") oldLine++;
    if (op.sign !== "-") newLine++;
  }
  return omitted ? { hunks, omitted } : { hunks };
}
