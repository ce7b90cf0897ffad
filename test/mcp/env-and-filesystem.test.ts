// The stdio child's environment rules (observed through the everything server's get-env tool) and the
// filesystem reference server's access-denied result.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { McpManager } from "../../src/mcp/index.ts";
import { EVERYTHING_BIN, FILESYSTEM_BIN, runNamed, testManager } from "./helpers.ts";

let open: McpManager[] = [];
afterEach(async () => {
  await Promise.all(open.map((m) => m.close()));
  open = [];
});

const NODE = Bun.which("node")!;
const PARENT_ENV = { HOME: "/home/someone", PATH: process.env.PATH, LANG: "C.UTF-8", TMPDIR: "/tmp/x", SECRET_TOKEN: "do-not-pass", EXTRA: "extra" };

/** The environment the child sees, as printed by its get-env tool. */
async function childEnv(fields: Record<string, unknown>): Promise<Record<string, string>> {
  const { manager } = testManager({ ev: { transport: "stdio", command: NODE, args: [EVERYTHING_BIN, "stdio"], ...fields } as never }, { env: PARENT_ENV });
  open.push(manager);
  await manager.start();
  expect(manager.servers()[0]!.state).toBe("connected");
  return JSON.parse((await runNamed(manager, "mcp__ev__get-env", {})).output) as Record<string, string>;
}

describe("stdio child environment", () => {
  test("pass_env omitted copies HOME, PATH, LANG and TMPDIR only", async () => {
    expect(await childEnv({})).toEqual({ HOME: "/home/someone", PATH: process.env.PATH!, LANG: "C.UTF-8", TMPDIR: "/tmp/x" });
  });

  test("pass_env [] passes nothing; env still applies", async () => {
    expect(await childEnv({ pass_env: [], env: { ONLY: "this" } })).toEqual({ ONLY: "this" });
  });

  test("a pass_env list passes exactly those names, then env overrides", async () => {
    expect(await childEnv({ pass_env: ["EXTRA", "LANG", "MISSING"], env: { LANG: "de_DE.UTF-8", NEW: "1" } })).toEqual({
      EXTRA: "extra",
      LANG: "de_DE.UTF-8",
      NEW: "1",
    });
  });
});

describe("filesystem server", () => {
  test("reads inside its allowed directory; access outside it is a tool error, not a crash", async () => {
    const allowed = mkdtempSync(join(tmpdir(), "mcp-fs-"));
    writeFileSync(join(allowed, "note.txt"), "inside");
    // The server takes the client's roots (the project directory) in place of its arguments: here the project is `allowed`.
    const { manager } = testManager({ fs: { transport: "stdio", command: FILESYSTEM_BIN, args: [allowed] } as never }, { roots: [allowed] });
    open.push(manager);
    await manager.start();
    expect(manager.servers()[0]!.state).toBe("connected");
    expect((await runNamed(manager, "mcp__fs__read_text_file", { path: join(allowed, "note.txt") })).output).toBe("inside");
    const denied = await runNamed(manager, "mcp__fs__read_text_file", { path: "/etc/hostname" });
    expect(denied.isError).toBe(true);
    expect(denied.output).toContain("Access denied");
    expect(manager.servers()[0]!.state).toBe("connected");
  });
});
