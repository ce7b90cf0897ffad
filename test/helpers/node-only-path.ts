// A PATH for running npm as a machine with only Node.js has it: node, npm and sh (npm runs a package's
// install scripts with sh -c) linked into one directory under `work`, and nothing else (no bun, no agent).
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";

export function nodeOnlyPath(work: string): string {
  const bin = join(work, "node-only-bin");
  if (!existsSync(bin)) {
    mkdirSync(bin);
    for (const tool of ["node", "npm", "sh"]) symlinkSync(Bun.which(tool)!, join(bin, tool));
  }
  return bin;
}
