// macOS: a Seatbelt profile for `sandbox-exec -p`, written from the same policy as bubblewrap's
// arguments. Reads are allowed except the hidden paths; writes only under the writable directories (and
// never under `.git`/`.agent`); network only when allowed; other processes cannot be inspected.
import type { SandboxPolicy } from "./policy.ts";

/** A string literal of the profile language (a Scheme dialect): backslashes and quotes escaped. */
export function seatbeltString(text: string): string {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

const subpath = (p: string) => `(subpath ${seatbeltString(p)})`;
const literal = (p: string) => `(literal ${seatbeltString(p)})`;

export function seatbeltProfile(policy: SandboxPolicy, tempDir: string): string {
  const lines = [
    "(version 1)",
    "(deny default)",
    "(allow process-exec process-fork)",
    "(allow signal (target same-sandbox))",
    "(allow process-info* (target same-sandbox))",
    "(allow sysctl-read)",
    "(allow mach-lookup)",
    "(allow ipc-posix-shm)",
    "(allow file-read*)",
    `(allow file-write* ${literal("/dev/null")} ${literal("/dev/tty")} ${subpath("/dev/fd")})`,
  ];
  const writable = [...policy.writable, tempDir];
  lines.push(`(allow file-write* ${writable.map(subpath).join(" ")})`);
  if (policy.readOnly.length > 0) lines.push(`(deny file-write* ${policy.readOnly.map(subpath).join(" ")})`);
  if (policy.hidden.length > 0) lines.push(`(deny file-read* file-write* ${policy.hidden.map((h) => (h.directory ? subpath(h.path) : literal(h.path))).join(" ")})`);
  // Without the network nothing of network* is allowed: local sockets included (a socket can be a proxy).
  if (policy.network) lines.push("(allow network*)");
  return `${lines.join("\n")}\n`;
}

export function seatbeltCommand(policy: SandboxPolicy, tempDir: string, argv: string[]): string[] {
  return ["/usr/bin/sandbox-exec", "-p", seatbeltProfile(policy, tempDir), ...argv];
}
