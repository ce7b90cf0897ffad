// Content copies of files, named by the SHA-256 of their bytes, under the session dir
// (`checkpoints/blobs/ab/abcdef...`): the same content is stored once, a copy is written (atomically,
// fsynced) before the change it guards, and deleting the session deletes them.
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Static } from "@sinclair/typebox";
import type { FileStateSchema } from "../../protocol/checkpoint.ts";
import { writeFileAtomic } from "../../util/atomic-write.ts";

export type FileState = Static<typeof FileStateSchema>;

export class BlobStore {
  constructor(readonly dir: string) {}

  private pathOf(sha256: string): string {
    return join(this.dir, sha256.slice(0, 2), sha256);
  }

  /** Stores `bytes`; returns their state with `mode`. */
  put(bytes: Uint8Array, mode: number): FileState {
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const path = this.pathOf(sha256);
    if (!existsSync(path)) writeFileAtomic(path, bytes, 0o600);
    return { sha256, size: bytes.length, mode };
  }

  /** The stored bytes of `state`; throws when the copy is missing or damaged (never restores wrong content). */
  get(state: FileState): Buffer {
    const path = this.pathOf(state.sha256);
    if (!existsSync(path)) throw new Error(`the restore point's copy ${state.sha256.slice(0, 12)} is missing from ${this.dir}`);
    const bytes = readFileSync(path);
    if (createHash("sha256").update(bytes).digest("hex") !== state.sha256) throw new Error(`the restore point's copy ${state.sha256.slice(0, 12)} in ${this.dir} is damaged`);
    return bytes;
  }
}

/** What a path holds now: a regular file's state (hashed, not stored), null when absent; "other" for a directory or link. */
export function currentState(path: string): FileState | null | "other" {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return null;
  }
  if (!st.isFile()) return "other";
  const bytes = readFileSync(path);
  return { sha256: createHash("sha256").update(bytes).digest("hex"), size: bytes.length, mode: st.mode & 0o7777 };
}

export function sameState(a: FileState | null | "other", b: FileState | null): boolean {
  if (a === "other") return false;
  if (a === null || b === null) return a === b;
  return a.sha256 === b.sha256;
}
