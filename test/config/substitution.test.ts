// ${VAR}, $(command), ${VAR:-command}: who may run commands, and how failures are reported.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { configEnv, problemLines } from "../helpers/config-env.ts";

const provider = (key: string) => `providers:\n  p:\n    kind: { type: catalog, name: b }\n    auth: { type: static_key, key: "${key}" }\n`;
const keyOf = (r: ReturnType<ReturnType<typeof configEnv>["load"]>) => {
  const auth = r.config.providers?.p?.auth;
  return auth?.type === "static_key" ? auth.key : undefined;
};

describe("environment references", () => {
  test("${VAR} is replaced; static_key is trimmed of surrounding whitespace only", () => {
    const c = configEnv();
    c.globalFile(provider("${MY_KEY}"));
    const r = c.load({ env: { MY_KEY: "  \n sk.with.dots-and spaces \n" } });
    expect(problemLines(r)).toEqual([]);
    expect(keyOf(r)).toBe("sk.with.dots-and spaces");
  });

  test("an unset variable is an error naming the key path and the variable", () => {
    const c = configEnv();
    c.globalFile(provider("${NOT_SET_ANYWHERE}"));
    expect(problemLines(c.load(), "error")).toEqual(["providers.p.auth.key: environment variable NOT_SET_ANYWHERE is not set"]);
  });

  test("$$ writes a literal dollar", () => {
    const c = configEnv();
    c.globalFile("tui: { theme: \"cost$$5 $$(not a command)\" }\n");
    expect(c.load().config.tui?.theme).toBe("cost$5 $(not a command)");
  });
});

describe("command substitution", () => {
  test("runs each distinct command once with /bin/sh when the global config enables it", () => {
    const c = configEnv();
    const counter = join(c.root, "count");
    c.globalFile(`config_command_substitution: true\n${provider(`$(echo run >> ${counter}; printf secret-value)`)}tui: { theme: "$(echo run >> ${counter}; printf secret-value)" }\n`);
    const r = c.load();
    expect(problemLines(r)).toEqual([]);
    expect(keyOf(r)).toBe("secret-value");
    expect(readFileSync(counter, "utf8")).toBe("run\n");
  });

  test("${VAR:-command} uses the variable when set and the command otherwise", () => {
    const c = configEnv();
    c.globalFile(`config_command_substitution: true\n${provider("${FROM_ENV:-printf from-command}")}`);
    expect(keyOf(c.load({ env: { FROM_ENV: "from-env" } }))).toBe("from-env");
    expect(keyOf(c.load())).toBe("from-command");
  });

  test("a failing command is an error naming the key path, not the command's output", () => {
    const c = configEnv();
    c.globalFile(`config_command_substitution: true\n${provider("$(echo do-not-show-this; exit 3)")}`);
    const lines = problemLines(c.load(), "error");
    expect(lines).toEqual(["providers.p.auth.key: command substitution failed: the command exited with status 3"]);
    expect(lines.join()).not.toContain("do-not-show-this");
  });

  test("a command that hangs is stopped by the timeout", () => {
    const c = configEnv();
    c.globalFile(`config_command_substitution: true\ntui: { theme: "$(sleep 5)" }\n`);
    const result = c.load({ commandTimeoutMs: 200 });
    expect(problemLines(result, "error")).toEqual(["tui.theme: command substitution failed: the command timed out after 200 ms"]);
  });

  test("commands do not run when substitution is off", () => {
    const c = configEnv();
    const marker = join(c.root, "ran-global");
    c.globalFile(`tui: { theme: "$(touch ${marker})" }\n`);
    const lines = problemLines(c.load(), "error");
    expect(lines[0]).toStartWith("tui.theme: command substitution is not run here: config_command_substitution is off in the global config");
    expect(existsSync(marker)).toBe(false);
  });

  test("values in a project config never run commands, even when the global config enables them", () => {
    const c = configEnv();
    const marker = join(c.root, "ran-project");
    c.globalFile("config_command_substitution: true\n");
    const project = c.projectFile(`config_command_substitution: true\ntui: { theme: "$(touch ${marker})" }\nproviders:\n  p:\n    kind: { type: catalog, name: b }\n    auth: { type: static_key, key: "\${UNSET_VAR_X:-touch ${marker}}" }\n`);
    // Trusted (the provider and its \${VAR} wait for trust otherwise, and are then not substituted at all).
    const r = c.load({ untrusted: "keep" });
    expect(existsSync(marker)).toBe(false);
    const errors = r.problems.filter((p) => p.severity === "error");
    expect(errors.map((p) => [p.file, p.path])).toEqual([
      [project, "tui.theme"],
      [project, "providers.p.auth.key"],
    ]);
    expect(errors[0]!.message).toContain("values in a project config never run commands");
    expect(problemLines(r, "warning")).toEqual(["config_command_substitution: is honoured only in the global config; ignored here"]);
  });
});

describe("environment references in a project config", () => {
  test("nothing the project may not use yet is substituted: an unset variable there is no error, a set one is never read", () => {
    const c = configEnv();
    c.projectFile('mcp_servers:\n  gh: { transport: stdio, command: gh-mcp, env: { TOKEN: "${NOT_SET_ANYWHERE}" } }\nmodels:\n  x: { provider_name: "${MY_SECRET_X}" }\n');
    const r = c.load({ env: { MY_SECRET_X: "secret-value-123" } });
    expect(problemLines(r, "error")).toEqual([]);
    expect(r.secrets).not.toContain("secret-value-123");
    expect(r.trust.items.map((i) => i.key)).toEqual(["mcp_servers.gh", "models.x"]);
    const kept = c.load({ env: { MY_SECRET_X: "secret-value-123" }, untrusted: "keep" });
    expect(problemLines(kept, "error")[0]).toBe("mcp_servers.gh.env.TOKEN: environment variable NOT_SET_ANYWHERE is not set");
    expect(kept.secrets).toContain("secret-value-123");
  });
});
