// The files `@` offers in a local session: the session project's file catalog, the same walk glob and grep
// use (.gitignore honoured, generated trees pruned, budgets applied). Read once per view.
import { FileCatalog, findRepositoryRoot } from "../src/tools/file-catalog.ts";

/** The project of the session in `sessionDir` (its store says), else the repository around `cwd`. */
export async function projectFiles(sessionDir: string, cwd: string): Promise<readonly string[]> {
  let root = findRepositoryRoot(cwd) ?? cwd;
  if (sessionDir) {
    const { openSession } = await import("../src/daemon/store/index.ts");
    const store = openSession(sessionDir);
    try {
      root = store.meta().project || root;
    } finally {
      store.close();
    }
  }
  return new FileCatalog({ root, clock: { now: () => Date.now() } }).snapshot().files;
}
