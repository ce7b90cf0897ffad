// Sees what a command changed in the project: a private git store under the session dir (never the
// project's own .git) takes a snapshot of the project's files before and after the command, with the
// project's .gitignore rules, and the difference names each changed file with its content from before.
// Git runs with no system or global config, fsmonitor off and no hooks: the snapshot runs nothing the
// project or the user's git config names (filter drivers, hooks).
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface ShadowChange {
  /** Relative to the project root, as git prints it. */
  path: string;
  /** The blob before the command; null: the file did not exist. */
  before: { blob: string; mode: number } | null;
}

export class ShadowGit {
  private ready: Promise<boolean> | null = null;

  constructor(
    private readonly gitDir: string,
    private readonly projectRoot: string,
    private readonly env: Record<string, string | undefined>,
  ) {}

  /** Snapshots need a repository around the project (a tree with its ignore rules) and git on PATH. */
  static covers(projectRoot: string): boolean {
    for (let dir = projectRoot; ; dir = dirname(dir)) {
      if (existsSync(join(dir, ".git"))) return true;
      if (dirname(dir) === dir) return false;
    }
  }

  /** The tree id of the project's current files (tracked and untracked, not ignored); null when git cannot run. */
  async snapshot(): Promise<string | null> {
    if (!(await this.init())) return null;
    const added = await this.git(["add", "--all", "--ignore-errors", "--", "."]);
    if (added.code !== 0 && added.code !== 1) return null;
    const tree = await this.git(["write-tree"]);
    return tree.code === 0 ? tree.out.trim() : null;
  }

  /** Regular files that differ between two snapshots (links, submodules and directories are not followed). */
  async diff(from: string, to: string): Promise<ShadowChange[]> {
    if (from === to) return [];
    const r = await this.git(["diff-tree", "-r", "-z", "--no-renames", "--raw", from, to]);
    if (r.code !== 0) return [];
    const fields = r.out.split("\0");
    const changes: ShadowChange[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const [oldMode, newMode, oldBlob] = fields[i]!.replace(/^:/, "").split(" ");
      const path = fields[i + 1]!;
      const regular = (m: string | undefined) => m === "100644" || m === "100755";
      if (!(regular(oldMode) || oldMode === "000000") || !(regular(newMode) || newMode === "000000")) continue;
      changes.push({ path, before: oldMode === "000000" ? null : { blob: oldBlob!, mode: oldMode === "100755" ? 0o755 : 0o644 } });
    }
    return changes;
  }

  async blob(id: string): Promise<Uint8Array | null> {
    const proc = Bun.spawn(["git", ...this.base(), "cat-file", "blob", id], { env: this.gitEnv(), stdout: "pipe", stderr: "ignore", stdin: "ignore" });
    const [bytes, code] = await Promise.all([new Response(proc.stdout).arrayBuffer(), proc.exited]);
    return code === 0 ? new Uint8Array(bytes) : null;
  }

  private init(): Promise<boolean> {
    this.ready ??= (async () => {
      if (existsSync(join(this.gitDir, "HEAD"))) return true;
      mkdirSync(this.gitDir, { recursive: true, mode: 0o700 });
      const r = await this.run(["git", "init", "--quiet", "--template=", this.gitDir]);
      if (r.code !== 0) return false;
      // `git init DIR` made DIR/.git; the store is used with explicit --git-dir, as a non-bare repository.
      if ((await this.run(["git", "--git-dir", join(this.gitDir, ".git"), "config", "core.bare", "false"])).code !== 0) return false;
      // Content the project's repository already holds (every committed file) is not copied again: its
      // objects are read from there, and only changed or new files take room under the session.
      const objects = projectObjects(this.projectRoot);
      if (objects) writeFileSync(join(this.gitDir, ".git", "objects", "info", "alternates"), `${objects}\n`);
      return true;
    })().catch(() => false);
    return this.ready;
  }

  private base(): string[] {
    return ["--git-dir", join(this.gitDir, ".git"), "--work-tree", this.projectRoot, "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "core.quotepath=false"];
  }

  private gitEnv(): Record<string, string> {
    const env: Record<string, string> = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_TERMINAL_PROMPT: "0" };
    for (const key of ["PATH", "HOME", "LANG", "TMPDIR"]) if (this.env[key]) env[key] = this.env[key]!;
    return env;
  }

  private git(args: string[]): Promise<{ code: number; out: string }> {
    return this.run(["git", ...this.base(), ...args]);
  }

  private async run(cmd: string[]): Promise<{ code: number; out: string }> {
    try {
      const proc = Bun.spawn(cmd, { cwd: this.projectRoot, env: this.gitEnv(), stdout: "pipe", stderr: "ignore", stdin: "ignore" });
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      return { code, out };
    } catch {
      return { code: -1, out: "" };
    }
  }
}

/** The object directory of the repository around the project (a `.git` directory; a worktree's `.git` file is not followed). */
function projectObjects(projectRoot: string): string | null {
  for (let dir = projectRoot; ; dir = dirname(dir)) {
    const objects = join(dir, ".git", "objects");
    try {
      if (statSync(objects).isDirectory()) return objects;
    } catch {
      if (existsSync(join(dir, ".git"))) return null;
    }
    if (dirname(dir) === dir) return null;
  }
}
