// Picks the sandbox of this platform for a session's settings: bubblewrap on Linux, Seatbelt on macOS.
// Where none can run, the mode falls back to `off` and the caller gets one line saying so.
import { bwrapCommand, probeBwrap } from "./bwrap.ts";
import { describePolicy, type PolicyPlaces, sandboxPolicy, type SandboxPolicy } from "./policy.ts";
import { seatbeltCommand } from "./seatbelt.ts";
import type { SandboxSettings } from "./settings.ts";

export interface Sandbox {
  policy: SandboxPolicy;
  /** `workspace_write, no network`. */
  description: string;
  /** The command line that runs `argv` inside the sandbox; `tempDir` is the shell's own scratch directory. */
  wrap(argv: string[], tempDir: string): string[];
}

export interface SandboxStart {
  /** null: commands run without a sandbox (mode off, or none available: then `notice` says so). */
  sandbox: Sandbox | null;
  notice?: string;
}

export interface SandboxHost {
  platform: NodeJS.Platform;
  which(bin: string): string | null;
  /** null when bubblewrap works here. */
  probe(bwrap: string): string | null;
}

const probed = new Map<string, string | null>();

/** The real machine; bubblewrap's probe runs once per process. */
export const SYSTEM_HOST: SandboxHost = {
  platform: process.platform,
  which: (bin) => Bun.which(bin),
  probe: (bwrap) => {
    if (!probed.has(bwrap)) probed.set(bwrap, probeBwrap(bwrap));
    return probed.get(bwrap)!;
  },
};

export function startSandbox(settings: SandboxSettings, places: PolicyPlaces, host: SandboxHost = SYSTEM_HOST): SandboxStart {
  const policy = sandboxPolicy(settings, places);
  if (!policy) return { sandbox: null };
  const description = describePolicy(policy);
  const fallback = (why: string): SandboxStart => ({
    sandbox: null,
    notice: `sandbox.mode is ${policy.mode} but ${why}: shell commands run WITHOUT a sandbox (mode off)${settings.autonomy === "sandboxed" ? " and ask as with autonomy accept_edits" : ""}`,
  });
  if (host.platform === "linux") {
    const bwrap = host.which("bwrap");
    if (!bwrap) return fallback("bubblewrap is not installed (Debian/Ubuntu: apt install bubblewrap)");
    const problem = host.probe(bwrap);
    if (problem) return fallback(problem);
    return { sandbox: { policy, description, wrap: (argv, tempDir) => bwrapCommand(bwrap, policy, tempDir, argv) } };
  }
  if (host.platform === "darwin") {
    if (!host.which("sandbox-exec")) return fallback("sandbox-exec is not available");
    return { sandbox: { policy, description, wrap: (argv, tempDir) => seatbeltCommand(policy, tempDir, argv) } };
  }
  return fallback(`there is no sandbox for ${host.platform}`);
}
