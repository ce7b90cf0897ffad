// Ctrl+G (tui.keys.external_editor): the prompt opens in the person's editor ($VISUAL, else $EDITOR, else
// vi) on a private temp file; the view waits (the event loop is held, so Ink neither draws nor reads
// keys, and the editor owns the terminal), then takes the file back as the prompt. The terminal leaves
// raw mode for the editor and returns to it after.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The terminal input the view reads from (raw mode is set off for the editor, then back). */
export interface RawInput {
  isTTY?: boolean;
  isRaw?: boolean;
  setRawMode?(mode: boolean): unknown;
}

export function editorOf(env: Record<string, string | undefined>): string {
  return env.VISUAL?.trim() || env.EDITOR?.trim() || "vi";
}

export function editInEditor(text: string, env: Record<string, string | undefined>, input?: RawInput): { text: string } | { error: string } {
  const editor = editorOf(env);
  const dir = mkdtempSync(join(tmpdir(), "agent-prompt-"));
  const file = join(dir, "prompt.md");
  const raw = input?.isTTY === true && input.isRaw === true;
  try {
    writeFileSync(file, text, { mode: 0o600 });
    if (raw) input!.setRawMode?.(false);
    // Through the shell, as git runs $EDITOR: `code --wait` and other editors with flags work.
    const run = spawnSync("/bin/sh", ["-c", `${editor} "$1"`, "sh", file], { stdio: "inherit", env: env as NodeJS.ProcessEnv });
    if (run.error) return { error: `could not start the editor '${editor}': ${run.error.message}` };
    if (run.status !== 0) return { error: `the editor '${editor}' exited with ${run.status ?? run.signal}; the prompt is unchanged` };
    // Editors end the file with a line break the person did not mean to send.
    return { text: readFileSync(file, "utf8").replace(/\r?\n$/, "") };
  } catch (error) {
    return { error: `the prompt could not go through the editor: ${(error as Error).message}` };
  } finally {
    if (raw) input!.setRawMode?.(true);
    rmSync(dir, { recursive: true, force: true });
  }
}
