// A project's hook status, derived from `<project>/.agent/gateway.yaml` each time it is asked for.
// Best effort by design (gateway.md): a missing, unreadable, oversized or unparsable file reads as
// "no gateway.yaml" and never fails the request that lists the project.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";

export interface HookStatus {
  has_gateway_yaml: boolean;
  configured_hooks: string[];
}

/** Larger files are not read: a project listing must stay fast whatever sits in a project. */
export const GATEWAY_YAML_MAX_BYTES = 256 * 1024;
const NONE: HookStatus = { has_gateway_yaml: false, configured_hooks: [] };

export function gatewayYamlPath(projectPath: string): string {
  return join(projectPath, ".agent", "gateway.yaml");
}

export function hookStatus(projectPath: string): HookStatus {
  let text: string;
  try {
    text = readBounded(gatewayYamlPath(projectPath));
  } catch {
    return NONE;
  }
  let data: unknown;
  try {
    data = Bun.YAML.parse(text);
  } catch {
    return NONE;
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

function readBounded(path: string): string {
  // O_NONBLOCK: a FIFO named gateway.yaml must not hang the listing.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > GATEWAY_YAML_MAX_BYTES) throw new Error("not a small regular file");
    const buf = Buffer.alloc(st.size);
    const n = readSync(fd, buf, 0, st.size, 0);
    return new TextDecoder("utf-8", { fatal: true }).decode(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
}
