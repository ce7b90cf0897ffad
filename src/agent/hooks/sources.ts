// Where a session's hooks come from: the `hooks` block of each config file, read per file rather than from
// the merged config, so the global config's and the project's lists both run (the layer merge would let a
// project's list for an event replace the user's own). The project's only while it is trusted (or kept for
// this run): its hook commands are trust items (src/config/trust/items.ts).
import type { LoadedConfig } from "../../config/load.ts";
import { isMap } from "../../config/doc.ts";
import type { HookSource } from "./hooks.ts";

export function hookSources(loaded: Pick<LoadedConfig, "layers" | "trust">): HookSource[] {
  const sources: HookSource[] = [];
  for (const layer of loaded.layers) {
    if (layer.name === "project" && !loaded.trust.active) continue;
    const data = layer.parsed?.data;
    if (isMap(data) && isMap(data.hooks)) sources.push({ origin: layer.name, block: data.hooks });
  }
  return sources;
}
