// Reads a small file a project may supply (config, rule files) without letting it cost the machine:
// opened non-blocking (a link to a FIFO or a terminal must not hang the open), refused unless it is a
// regular file, and refused before reading when it is over the caller's size limit.
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";

/**
 * A config file bigger than this is refused before it is read: real ones are a few KB, and parsing costs
 * about 40 times the file's size in memory (a 50 MB YAML file took 1.85 GB), which a cloned repository
 * could otherwise make every `agent` command in it pay.
 */
export const MAX_CONFIG_FILE_BYTES = 4 * 1024 * 1024;

export type BoundedRead = { bytes: Uint8Array } | { problem: "missing" | "not_regular" | "too_large" | "unreadable"; size?: number; code?: string };

export function readBoundedFile(path: string, maxBytes: number): BoundedRead {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { problem: "not_regular" };
    if (stat.size > maxBytes) return { problem: "too_large", size: stat.size };
    return { bytes: readFileSync(fd) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? { problem: "missing" } : { problem: "unreadable", code };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
