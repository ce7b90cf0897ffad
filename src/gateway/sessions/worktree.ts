// Git worktrees for `worktree_backed` sessions: one per session under the gateway data dir, on a branch
// named after the session. Removing the session removes the worktree; the branch stays, so commits made
// in the session are never lost (decisions-gateway-sessions.md 6).
import { existsSync, rmSync } from "node:fs";

export class WorktreeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorktreeError";
  }
}

function git(args: string[], cwd: string): { ok: boolean; out: string } {
  const p = Bun.spawnSync(["git", ...args], { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } });
  return { ok: p.exitCode === 0, out: `${p.stdout.toString()}${p.stderr.toString()}`.trim() };
}

export function worktreeBranch(sessionId: string): string {
  return `agent/${sessionId}`;
}

/** Creates `path` as a worktree of the project's current HEAD on a new branch. */
export function createWorktree(projectPath: string, path: string, branch: string): void {
  const head = git(["rev-parse", "--verify", "HEAD"], projectPath);
  if (!head.ok) throw new WorktreeError(`project ${projectPath} is not a git repository with at least one commit, so a worktree_backed session cannot be created (use project_direct)`);
  const added = git(["worktree", "add", "-b", branch, path, "HEAD"], projectPath);
  if (!added.ok) throw new WorktreeError(`git worktree add failed in ${projectPath}: ${added.out.split("\n").slice(-2).join(" ")}`);
}

/** Removes the worktree (also when its directory is already gone); throws when git refuses. */
export function removeWorktree(projectPath: string, path: string): void {
  if (existsSync(projectPath)) {
    const removed = git(["worktree", "remove", "--force", "--force", path], projectPath);
    if (!removed.ok && existsSync(path)) throw new WorktreeError(`git worktree remove failed for ${path}: ${removed.out.split("\n").slice(-2).join(" ")}`);
    git(["worktree", "prune"], projectPath);
  }
  // A project that vanished leaves only the directory to delete.
  if (existsSync(path)) rmSync(path, { recursive: true, force: true });
}
