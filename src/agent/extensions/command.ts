// `/extensions`: the session's extensions with their state (loaded, awaiting approval, rejected, failed)
// and what loaded ones provide; `/extensions approve NAME` loads one that was rejected before.
import { SessionCommandError, type SessionCommand } from "../commands/types.ts";
import type { ExtensionStatus } from "./manager.ts";

function describe(s: ExtensionStatus): string {
  const head = `${s.name}${s.version ? ` ${s.version}` : ""} [${s.origin}]: ${s.state.replaceAll("_", " ")}`;
  if (s.state === "loaded") {
    const provided = [...s.tools, ...s.system_reminders];
    return `${head}${provided.length ? ` (${provided.join(", ")})` : ""}`;
  }
  return s.reason ? `${head} (${s.reason})` : head;
}

export const extensionsCommand: SessionCommand = {
  name: "extensions",
  usage: "/extensions [list | approve NAME]",
  summary: "Extensions: list them with state and what they provide, or approve one you rejected",
  whileBusy: false,
  async run({ services }, args) {
    const manager = services.extensions;
    const action = args[0] ?? "list";
    if (action === "list") {
      if (args.length > 1) throw new SessionCommandError("invalid_command", "usage: /extensions list");
      const all = manager?.list() ?? [];
      const message = all.length ? all.map(describe).join("\n") : "No extensions found (they live in <config dir>/extensions/NAME/ and .agent/extensions/NAME/ with an extension.json).";
      return { message, data: { extensions: all.map(({ dir: _dir, ...rest }) => rest) } };
    }
    if (action !== "approve") throw new SessionCommandError("invalid_command", `unknown /extensions action '${action}'; allowed: list, approve`);
    const name = args[1];
    if (!name || args.length > 2) throw new SessionCommandError("invalid_command", "usage: /extensions approve NAME");
    const all = manager?.list() ?? [];
    const found = all.find((s) => s.name === name);
    if (!manager || !found) throw new SessionCommandError("invalid_command", `no extension is named '${name}'${all.length ? `; found: ${all.map((s) => s.name).join(", ")}` : " (none were found)"}`);
    if (found.state !== "rejected") {
      const why = found.state === "awaiting_approval" ? "answer its open question instead" : found.state === "loaded" ? "it is already loaded" : `fix it first: ${found.reason ?? "it cannot be loaded"}`;
      throw new SessionCommandError("command_unavailable", `/extensions approve only applies to a rejected extension; ${name} is ${found.state.replaceAll("_", " ")}: ${why}`);
    }
    const status = await manager.approve(name);
    return { message: describe(status), data: { extension: (({ dir: _dir, ...rest }) => rest)(status) } };
  },
};
