// Preloaded by bun test (bunfig.toml): no test may read or write the real user's config, data or keys.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const home = mkdtempSync(join(tmpdir(), "agent-test-home-"));
process.env.HOME = home;
process.env.XDG_CONFIG_HOME = join(home, ".config");
process.env.XDG_DATA_HOME = join(home, ".local", "share");
process.env.XDG_STATE_HOME = join(home, ".local", "state");
process.env.XDG_CACHE_HOME = join(home, ".cache");
process.env.XDG_RUNTIME_DIR = join(home, ".run");
for (const name of Object.keys(process.env)) {
  // Key and base-URL variables choose a provider when no config names one (src/providers/env-providers.ts).
  if (/_API_KEY$|_AUTH_TOKEN$|_BASE_URL$|^OTEL_|^AZURE_OPENAI_ENDPOINT$|^ANTHROPIC_FOUNDRY_|^GITHUB_TOKEN$|^HF_TOKEN$/.test(name)) delete process.env[name];
}
