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
  if (/_API_KEY$|_AUTH_TOKEN$|^OTEL_/.test(name)) delete process.env[name];
}
