// Builds a ToolContext whose file catalog is invalidated whenever a tool mutates a file.
import { resolve } from "node:path";
import type { Static } from "@sinclair/typebox";
import type { FileCatalogConfig } from "../config/schema/daemon.ts";
import { FileCatalog } from "./file-catalog.ts";
import type { ToolClock, ToolContext } from "./tool.ts";

export interface ToolContextOptions {
  projectRoot: string;
  cwd?: string;
  clock: ToolClock;
  supportsVision: boolean;
  fileCatalog?: Static<typeof FileCatalogConfig>;
  /** Told about every mutated file after the catalog has been invalidated (e.g. the file_changed reminder). */
  onFileMutated?: (path: string) => void;
  /** `permissions.secret_files` (glob and grep leave such files out). */
  isSecretFile?: (absolute: string) => boolean;
}

export function createToolContext(options: ToolContextOptions): ToolContext {
  const projectRoot = resolve(options.projectRoot);
  const fileCatalog = new FileCatalog({ root: projectRoot, clock: options.clock, config: options.fileCatalog });
  return {
    projectRoot,
    cwd: resolve(projectRoot, options.cwd ?? "."),
    clock: options.clock,
    fileCatalog,
    supportsVision: options.supportsVision,
    ...(options.isSecretFile ? { isSecretFile: options.isSecretFile } : {}),
    onFileMutated(path) {
      fileCatalog.invalidate();
      options.onFileMutated?.(path);
    },
  };
}
