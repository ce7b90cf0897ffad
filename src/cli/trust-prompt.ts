// Before a session opens on a terminal: a project that wants to run programs or send credentials
// elsewhere and is not trusted gets the trust dialog (tui/trust). Trust records the consent; not now
// lets the daemon start without those settings, and its notice in the conversation says so.
import { relative } from "node:path";
import { dataRoot } from "../config/files.ts";
import { loadConfig } from "../config/load.ts";
import { grantTrust } from "../config/trust/assess.ts";
import { ProjectTrustStore, projectTrustFile } from "../config/trust/store.ts";
import type { Io } from "../util/cli-command.ts";

/** False when the person cancelled (Ctrl+C): no session should start. */
export async function confirmProjectTrust(project: string, io: Io): Promise<boolean> {
  const trust = loadConfig({ cwd: project, env: io.env, untrusted: "keep" }).trust;
  if (trust.state !== "untrusted" && trust.state !== "changed") return true;
  const { askProjectTrust } = await import("../../tui/trust/ask-trust.tsx");
  const decision = await askProjectTrust({ file: relative(io.cwd, trust.file) || trust.file, state: trust.state, items: trust.items.map((i) => i.shown) });
  if (decision === "trust") grantTrust(new ProjectTrustStore(projectTrustFile(dataRoot(io.env))), trust);
  return decision !== "cancel";
}
