// The `sandbox` block: where shell commands run (docs/permissions.md "Sandbox"). Global; a project's
// values count only where they tighten the global ones (src/sandbox/settings.ts).
import { Type } from "@sinclair/typebox";
import { Nullable, StringList } from "./common.ts";

/** From loosest to strictest: a project may only move right. */
export const SANDBOX_MODES = ["off", "workspace_write", "read_only"] as const;
/** From most questions to fewest: a project may only move left. */
export const AUTONOMY_LEVELS = ["ask", "accept_edits", "sandboxed"] as const;

export const SandboxConfig = Type.Object(
  {
    mode: Type.Optional(
      Nullable(
        Type.Union(SANDBOX_MODES.map((m) => Type.Literal(m)), {
          description: "workspace_write: commands write only in the project, their temp dir and writable_roots; read_only: no writes; off: no sandbox. Default: workspace_write with autonomy sandboxed, else off.",
        }),
      ),
    ),
    network: Type.Optional(Nullable(Type.Boolean({ default: false, description: "Whether sandboxed commands may use the network." }))),
    writable_roots: Type.Optional(StringList("Absolute or ~/ directories sandboxed commands may also write (workspace_write).")),
    autonomy: Type.Optional(
      Nullable(
        Type.Union(AUTONOMY_LEVELS.map((a) => Type.Literal(a)), {
          description: "ask: rules decide, else ask; accept_edits: also edit project files without asking; sandboxed: also run shell commands in the sandbox without asking.",
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
