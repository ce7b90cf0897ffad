// Names and ids of registry records, checked at the edge of every route before any database or file
// access: a configuration name becomes a directory name, so only slugs pass.
import { ProtocolError } from "../../protocol/errors.ts";

/** Lowercase letters, digits and hyphens; no hyphen first or last (gateway.md, Configuration record). */
export const CONFIG_NAME_PATTERN = "^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$";
export const CONFIG_NAME_MAX = 63;
const CONFIG_NAME = new RegExp(CONFIG_NAME_PATTERN);

export const CONFIG_NAME_RULE = `lowercase letters, digits and hyphens, not starting or ending with a hyphen, at most ${CONFIG_NAME_MAX} characters`;

/** 422 unless `name` is a slug-safe configuration name. `field` names where the value came from. */
export function assertConfigName(name: unknown, field = "name"): string {
  if (typeof name !== "string" || name.length > CONFIG_NAME_MAX || !CONFIG_NAME.test(name)) {
    const shown = typeof name === "string" ? JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name) : typeof name;
    throw new ProtocolError("validation_failed", 422, `${field}: invalid configuration name ${shown}; allowed: ${CONFIG_NAME_RULE}`);
  }
  return name;
}

/** Project ids: 8 lowercase hexadecimal characters. */
export const PROJECT_ID = /^[0-9a-f]{8}$/;

export function newProjectId(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex");
}
