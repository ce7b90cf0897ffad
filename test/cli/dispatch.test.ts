import { describe, expect, test } from "bun:test";
import type { CommandSpec } from "../../src/util/cli-command.ts";
import { dispatch } from "../../src/cli/dispatch.ts";
import { captureIo } from "../helpers/io.ts";


const seen: unknown[] = [];
const tree: CommandSpec = {
  name: "agent",
  summary: "root",
  subcommands: [
    {
      name: "config",
      summary: "config group",
      subcommands: [
        {
          name: "validate",
          summary: "validate it",
          flags: [
            { name: "json", type: "boolean", summary: "json" },
            { name: "format", type: "string", summary: "fmt", choices: ["json", "yaml"] },
          ],
          positionals: [{ name: "file", summary: "a file" }],
          run: async (args) => { seen.push(args); return 0; },
        },
      ],
    },
  ],
};

describe("dispatch", () => {
  test("unknown command names the closest valid one and exits 2", async () => {
    const io = captureIo();
    expect(await dispatch(tree, ["confg"], io)).toBe(2);
    expect(io.stderr).toBe("agent: unknown command 'confg' for 'agent' (did you mean 'config'?)\n");
  });

  test("unknown flag names the closest valid flag and exits 2", async () => {
    const io = captureIo();
    expect(await dispatch(tree, ["config", "validate", "--jsn"], io)).toBe(2);
    expect(io.stderr).toBe("agent: unknown flag '--jsn' for 'agent config validate' (did you mean '--json'?)\n");
  });

  test("with nothing close, the error lists the valid names", async () => {
    const io = captureIo();
    expect(await dispatch(tree, ["zzzzzzzz"], io)).toBe(2);
    expect(io.stderr).toBe("agent: unknown command 'zzzzzzzz' for 'agent' (valid: 'config')\n");
    const flagIo = captureIo();
    expect(await dispatch(tree, ["config", "validate", "--qqqqqqqq"], flagIo)).toBe(2);
    expect(flagIo.stderr).toBe("agent: unknown flag '--qqqqqqqq' for 'agent config validate' (valid: '--json', '--format', '--help')\n");
  });

  test("choices are enforced with the allowed list", async () => {
    const io = captureIo();
    expect(await dispatch(tree, ["config", "validate", "--format", "toml"], io)).toBe(2);
    expect(io.stderr).toContain("allowed: json, yaml");
  });

  test("--help works at every level", async () => {
    for (const argv of [["--help"], ["config", "--help"], ["config", "validate", "-h"]]) {
      const io = captureIo();
      expect(await dispatch(tree, argv, io)).toBe(0);
      expect(io.stdout).toContain("Usage: agent");
    }
  });

  test("a group without a subcommand prints its help and exits 2", async () => {
    const io = captureIo();
    expect(await dispatch(tree, ["config"], io)).toBe(2);
    expect(io.stdout).toContain("validate");
  });

  test("flags and positionals reach the command", async () => {
    const io = captureIo();
    expect(await dispatch(tree, ["config", "validate", "--format=yaml", "x.yaml", "--json"], io)).toBe(0);
    expect(seen.at(-1)).toEqual({ flags: { format: "yaml", json: true }, positionals: ["x.yaml"], path: ["config", "validate"] });
  });

  test("extra positionals are rejected", async () => {
    const io = captureIo();
    expect(await dispatch(tree, ["config", "validate", "a", "b"], io)).toBe(2);
    expect(io.stderr).toContain("unexpected argument 'b'");
  });
});
