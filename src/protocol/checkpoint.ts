// Restore points of the files a turn changed (src/agent/checkpoints/): the record shapes, defined once.
import { Type } from "@sinclair/typebox";

/** A file's content as stored: the SHA-256 names its copy under the session dir; null in a slot: no file there. */
export const FileStateSchema = Type.Object({
  sha256: Type.String({ pattern: "^[0-9a-f]{64}$" }),
  size: Type.Integer({ minimum: 0 }),
  /** Permission bits (e.g. 420 = 0644). */
  mode: Type.Integer({ minimum: 0 }),
});

const MaybeState = Type.Union([FileStateSchema, Type.Null()], { description: "null: the file did not exist" });

export const CheckpointFileSchema = Type.Object({
  /** Absolute path. */
  path: Type.String(),
  before: MaybeState,
});

export const SettledFileSchema = Type.Object({ path: Type.String(), after: MaybeState });

export const RewindModeSchema = Type.Union([Type.Literal("code"), Type.Literal("conversation"), Type.Literal("both")]);
