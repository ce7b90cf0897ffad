// Linux: bubblewrap. The whole file system read-only, the writable directories bound writable again,
// `.git`/`.agent` read-only inside them, secrets covered by an empty tmpfs (directories) or /dev/null
// (files), a new /proc in a new PID namespace (other processes, the daemon's environment included, are
// not there), and a new network namespace with only loopback unless the network is allowed.
import type { SandboxPolicy } from "./policy.ts";

export function bwrapArgs(policy: SandboxPolicy, tempDir: string): string[] {
  const args = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  if (!policy.network) args.push("--unshare-net");
  for (const dir of [...policy.writable, tempDir]) args.push("--bind", dir, dir);
  for (const path of policy.readOnly) args.push("--ro-bind", path, path);
  for (const h of policy.hidden) args.push(...(h.directory ? ["--tmpfs", h.path, "--remount-ro", h.path] : ["--ro-bind", "/dev/null", h.path]));
  return args;
}

export function bwrapCommand(bwrap: string, policy: SandboxPolicy, tempDir: string, argv: string[]): string[] {
  return [bwrap, ...bwrapArgs(policy, tempDir), "--", ...argv];
}

/**
 * Whether bubblewrap can build its namespaces here (a container may refuse user or network
 * namespaces): null when it can, else why not, in one line.
 */
export function probeBwrap(bwrap: string): string | null {
  try {
    const result = Bun.spawnSync([bwrap, "--die-with-parent", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"], { stdout: "ignore", stderr: "pipe" });
    if (result.exitCode === 0) return null;
    const line = result.stderr.toString().trim().split("\n")[0] ?? "";
    return `bubblewrap cannot start a sandbox here (${line || `exit ${result.exitCode}`})`;
  } catch (error) {
    return `bubblewrap cannot start (${(error as Error).message})`;
  }
}
