// Whether a failed sandboxed command looks blocked by the sandbox rather than failing on its own: the
// messages a write to a read-only mount (EROFS), a hidden path or a missing network prints. A hint, not a
// verdict: the model is told it may ask to run the command outside the sandbox, and the user decides.
import type { SandboxPolicy } from "./policy.ts";

const WRITE = [/read-only file system/i, /\bEROFS\b/, /permission denied/i, /\bEACCES\b/, /operation not permitted/i, /\bEPERM\b/];
const NETWORK = [
  /network is unreachable/i,
  /\bENETUNREACH\b/,
  /could not resolve host/i,
  /temporary failure in name resolution/i,
  /name or service not known/i,
  /\bEAI_AGAIN\b/,
  /connection refused/i,
  /\bECONNREFUSED\b/,
  /failed to connect/i,
  /could(?:n.t| not) connect/i,
];

export function sandboxBlockHint(policy: SandboxPolicy, exitCode: number, output: string): string | null {
  if (exitCode === 0) return null;
  const blocked: string[] = [];
  if (WRITE.some((p) => p.test(output))) blocked.push(policy.mode === "read_only" ? "writing files" : "writing outside the project");
  if (!policy.network && NETWORK.some((p) => p.test(output))) blocked.push("the network");
  if (blocked.length === 0) return null;
  return (
    `[this command ran in the sandbox (${policy.mode}${policy.network ? "" : ", no network"}), which may have blocked ${blocked.join(" and ")}. ` +
    "If it needs that, call shell again with the same command and `outside_sandbox: true`: the user is asked first. Otherwise fix the command.]"
  );
}
