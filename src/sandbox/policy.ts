// What a sandboxed command may see and change, as paths: written once from the settings and the
// session's places, then turned into bubblewrap arguments (Linux) or a Seatbelt profile (macOS).
import { existsSync, realpathSync, statSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import type { SandboxSettings } from "./settings.ts";

export interface SandboxPolicy {
  mode: "workspace_write" | "read_only";
  network: boolean;
  /** Directories commands may write (the shell's temp dir is added when the shell starts). */
  writable: string[];
  /** Inside a writable directory, yet read-only: the project's `.git` and `.agent`. */
  readOnly: string[];
  /** Existing files and directories commands cannot read: replaced by an empty directory or file. */
  hidden: { path: string; directory: boolean }[];
}

export interface PolicyPlaces {
  projectRoot: string;
  home: string;
  /** The agent's global config dir and data root. */
  agentDirs: string[];
  /** `permissions.secret_files` entries naming one file or directory (no wildcard). */
  secretPaths: string[];
  /** `$XDG_RUNTIME_DIR`: the user's session bus and service sockets live there. */
  runtimeDir?: string;
  /** `$SSH_AUTH_SOCK`: the SSH agent signs with the user's keys for whoever connects. */
  sshAgentSocket?: string;
}

const inside = (dir: string, path: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** The home directories of credentials commands never need: ssh keys, cloud and package-signing keys. */
export const SECRET_HOME_DIRS = [".ssh", ".aws", ".gnupg", ".config/gcloud", ".azure", ".kube", ".docker", ".netrc", ".npmrc", ".pypirc"];

/**
 * Sockets that start programs outside any sandbox: the container engines' (root on the host). A read-only
 * mount does not stop connect(), so they are covered like secrets; so is the runtime directory, whose
 * session bus can start a command through the user's service manager (`systemd-run --user`).
 */
export const ESCAPE_SOCKETS = ["/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock"];

export function sandboxPolicy(settings: SandboxSettings, places: PolicyPlaces): SandboxPolicy | null {
  if (settings.mode === "off") return null;
  const project = real(places.projectRoot);
  const writable = settings.mode === "workspace_write" ? [...new Set([project, ...settings.writableRoots.filter(existsSync).map(real)])] : [];
  const listed = (p: string) => settings.writableRoots.some((r) => real(r) === p);
  const readOnly = settings.mode === "workspace_write" ? [".git", ".agent"].map((d) => join(project, d)).filter((p) => existsSync(p) && !listed(p)) : [];
  const hidden: SandboxPolicy["hidden"] = [];
  const candidates = [...SECRET_HOME_DIRS.map((d) => join(places.home, d)), ...places.agentDirs, ...places.secretPaths, ...ESCAPE_SOCKETS, ...[places.runtimeDir, places.sshAgentSocket].filter((p): p is string => p !== undefined)];
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue;
    const path = real(candidate);
    // Hiding a directory that holds the project (or a writable root) would hide the work itself.
    if ([project, ...writable].some((w) => inside(path, w) && w !== path)) continue;
    if (hidden.some((h) => h.path === path)) continue;
    hidden.push({ path, directory: statSync(path).isDirectory() });
  }
  return { mode: settings.mode, network: settings.network, writable, readOnly, hidden };
}

/** One line for notices and the TUI: `workspace_write, no network`. */
export function describePolicy(policy: SandboxPolicy | null): string {
  if (!policy) return "off";
  return `${policy.mode}, ${policy.network ? "network allowed" : "no network"}`;
}
