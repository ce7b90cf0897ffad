// The file operations of the registries, behind a small seam so tests can make any write fail and check
// that no partial state is left (the compensation rules of gateway.md). Writes are atomic.
import { chmodSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { writeFileAtomic } from "../../util/atomic-write.ts";

export interface RegistryFs {
  /** Atomic replace: readers see the old or the new content, never a torn file. */
  writeFile(path: string, data: string, mode: number): void;
  /** Returns undefined when the file does not exist. */
  readFile(path: string): string | undefined;
  mkdir(path: string, mode: number): void;
  /** Removes a file or a directory tree; missing is fine. */
  remove(path: string): void;
}

export const nodeRegistryFs: RegistryFs = {
  writeFile: (path, data, mode) => {
    writeFileAtomic(path, data, mode);
    // The temp file's mode is filtered by the umask; the registry's modes are exact.
    chmodSync(path, mode);
  },
  readFile: (path) => {
    try {
      return readFileSync(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  },
  mkdir: (path, mode) => {
    mkdirSync(path, { recursive: true, mode });
    chmodSync(path, mode);
  },
  remove: (path) => rmSync(path, { recursive: true, force: true }),
};
