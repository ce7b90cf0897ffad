// A project's hook status, derived from `<project>/.agent/gateway.yaml` each time it is asked for.
// Best effort by design (gateway.md): a missing, unreadable, oversized or unparsable file reads as
// "no gateway.yaml" and never fails the request that lists the project. Symlinks are followed only while
// they stay inside the project: a `.agent` or `gateway.yaml` that leads out of it reads as absent (a
// project must not make the gateway read, and report the keys of, a file elsewhere on the machine).
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { isInside } from "./project-paths.ts";

export interface HookStatus {
  has_gateway_yaml: boolean;
  configured_hooks: string[];
}

/** Larger files are not read: a project listing must stay fast whatever sits in a project. */
export const GATEWAY_YAML_MAX_BYTES = 256 * 1024;
/** The status of a project without a readable gateway.yaml (also what another host's project reads as). */
export const NO_HOOKS: HookStatus = { has_gateway_yaml: false, configured_hooks: [] };

export function gatewayYamlPath(projectPath: string): string {
  return join(projectPath, ".agent", "gateway.yaml");
}

export function hookStatus(projectPath: string): HookStatus {
  let text: string;
  try {
    text = readBounded(projectPath, gatewayYamlPath(projectPath));
  } catch {
    return NO_HOOKS;
  }
  let data: unknown;
  try {
    data = Bun.YAML.parse(text);
  } catch {
    return NO_HOOKS;
  }
  return { has_gateway_yaml: true, configured_hooks: hookNames(data) };
}

/** `hooks:` as a map (its keys are the names) or a list of names / `{name: ...}` entries. */
function hookNames(data: unknown): string[] {
  if (!data || typeof data !== "object" || Array.isArray(data)) return [];
  const hooks = (data as Record<string, unknown>).hooks;
  const names: unknown[] = Array.isArray(hooks)
    ? hooks.map((h) => (h && typeof h === "object" ? (h as Record<string, unknown>).name : h))
    : hooks && typeof hooks === "object"
      ? Object.keys(hooks)
      : [];
  return [...new Set(names.filter((n): n is string => typeof n === "string" && n.length > 0))];
}

function readBounded(projectPath: string, path: string): string {
  // Checked before the open (nothing outside is even opened) and on the open file (a link swapped in between).
  const real = realpathSync(path);
  if (!isInside(real, projectPath) || real === projectPath) throw new Error("leads out of the project");
  // O_NONBLOCK: a FIFO named gateway.yaml must not hang the listing.
  const fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    if (!isInside(openedPath(fd, real), projectPath)) throw new Error("leads out of the project");
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > GATEWAY_YAML_MAX_BYTES) throw new Error("not a small regular file");
    const buf = Buffer.alloc(st.size);
    const n = readSync(fd, buf, 0, st.size, 0);
    return new TextDecoder("utf-8", { fatal: true }).decode(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
}

/** The path of the file an fd is open on (Linux: /proc), else `real` when it is still the same file. */
function openedPath(fd: number, real: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    const opened = fstatSync(fd);
    const named = statSync(real);
    if (opened.dev !== named.dev || opened.ino !== named.ino) throw new Error("the file changed while it was opened");
    return real;
  }
}
