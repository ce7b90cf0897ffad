// Versioning: upgrade on load in memory, `agent config upgrade` writes version 3 keeping layout, newer is refused.
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, chmodSync } from "node:fs";
import { runCli } from "../../src/cli/run.ts";
import { configEnv, problemLines } from "../helpers/config-env.ts";
import { captureIo } from "../helpers/io.ts";

const upgradeCli = async (c: ReturnType<typeof configEnv>, extra: string[] = []) => {
  const io = captureIo({ cwd: c.project, env: c.env });
  const code = await runCli(["config", "upgrade", ...extra], io);
  return { code, io };
};

describe("config versions", () => {
  test("a config without version is upgraded in memory on load", () => {
    const c = configEnv();
    const file = c.globalFile("tui: { theme: dark }\n");
    const r = c.load();
    expect(r.ok).toBe(true);
    expect(r.config.version).toBe(3);
    expect(r.layers[0]).toMatchObject({ version: undefined, upgraded: true });
    expect(readFileSync(file, "utf8")).toBe("tui: { theme: dark }\n");
  });

  test("a version above 3 is refused as written by a newer agent", () => {
    const c = configEnv();
    c.globalFile("version: 4\n");
    const lines = problemLines(c.load(), "error");
    expect(lines[0]).toStartWith("version: this config was written by a newer agent (version 4)");
  });

  test("upgrade writes version 3 into YAML, keeping comments and layout", async () => {
    const c = configEnv();
    const text = "# my settings\ntui:\n  theme: dark   # the dark one\n\n# tools\ndaemon:\n  max_tool_turns: 5\n";
    const file = c.globalFile(text);
    chmodSync(file, 0o600);
    const { code, io } = await upgradeCli(c);
    expect(code).toBe(0);
    expect(io.stdout).toBe(`upgraded ${file} from an unversioned config to version 3\n`);
    expect(readFileSync(file, "utf8")).toBe(`version: 3\n${text}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = await upgradeCli(c);
    expect(again.io.stdout).toBe(`${file} is already at version 3\n`);
  });

  test("upgrade replaces an older version in YAML, JSON and TOML", async () => {
    const cases: [string, string, string][] = [
      ["yaml", "version: 2 # old\ntui: {}\n", "version: 3 # old\ntui: {}\n"],
      ["json", "{\n  \"tui\": {},\n  \"version\": 1\n}\n", "{\n  \"tui\": {},\n  \"version\": 3\n}\n"],
      ["json", "{\n    \"tui\": {}\n}\n", "{\n    \"version\": 3,\n    \"tui\": {}\n}\n"],
      ["toml", "# header\nversion = 1 # old\n[tui]\ntheme = \"x\"\n", "# header\nversion = 3 # old\n[tui]\ntheme = \"x\"\n"],
      ["toml", "# header\n[tui]\ntheme = \"x\"\n", "# header\nversion = 3\n[tui]\ntheme = \"x\"\n"],
    ];
    for (const [ext, before, after] of cases) {
      const c = configEnv();
      const file = c.globalFile(before, ext);
      const { code } = await upgradeCli(c);
      expect(code).toBe(0);
      expect(readFileSync(file, "utf8")).toBe(after);
      expect(c.load().ok).toBe(true);
    }
  });

  test("upgrade refuses a newer file and a broken file, leaving them untouched", async () => {
    const c = configEnv();
    const file = c.globalFile("version: 7\n");
    const { code, io } = await upgradeCli(c, ["--json"]);
    expect(code).toBe(1);
    expect(JSON.parse(io.stdout).files[0]).toMatchObject({ path: file, action: "refused" });
    expect(readFileSync(file, "utf8")).toBe("version: 7\n");
    const broken = configEnv();
    const bfile = broken.globalFile("tui: [\n");
    expect((await upgradeCli(broken)).code).toBe(1);
    expect(readFileSync(bfile, "utf8")).toBe("tui: [\n");
  });
});
