// A long-running process (the session daemon) keeps credentials out of its own environment once it has
// copied what it needs: they are deleted from process.env (children started with the default
// environment, crash reports) and, on Linux, blanked in the environment block the kernel keeps for
// /proc/<pid>/environ, which any process of the same user could read. The sandbox's PID namespace is the
// protection for sandboxed commands; this covers the ones that run outside it.
import { readFileSync } from "node:fs";
import { toArrayBuffer, type Pointer } from "bun:ffi";

/**
 * Deletes from `process.env` every variable `isSecret` names, and on Linux zeroes their values in the
 * process's original environment block. Returns the names withdrawn. Call it after taking a copy of the
 * environment (config substitution and reloads read the copy).
 */
export function withdrawSecretsFromEnvironment(isSecret: (name: string, value: string) => boolean): string[] {
  const names = Object.entries(process.env)
    .filter(([name, value]) => value !== undefined && isSecret(name, value))
    .map(([name]) => name);
  for (const name of names) delete process.env[name];
  if (process.platform === "linux" && names.length > 0) blankEnvironBlock(new Set(names));
  return names;
}

/** Zeroes `NAME=value` values in [env_start, env_end) of /proc/self/stat (fields 50 and 51, Linux 3.5+). */
function blankEnvironBlock(names: ReadonlySet<string>): void {
  let start: number;
  let end: number;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // Fields after the command name in parentheses start at field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    start = Number(fields[50 - 3]);
    end = Number(fields[51 - 3]);
  } catch {
    return;
  }
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start <= 0 || end <= start || end - start > 1 << 24) return;
  const block = new Uint8Array(toArrayBuffer(start as Pointer, 0, end - start));
  let at = 0;
  while (at < block.length) {
    let stop = block.indexOf(0, at);
    if (stop === -1) stop = block.length;
    const eq = block.indexOf(61 /* = */, at);
    if (eq !== -1 && eq < stop && names.has(new TextDecoder().decode(block.subarray(at, eq)))) block.fill(0, eq + 1, stop);
    at = stop + 1;
  }
}
