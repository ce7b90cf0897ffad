// Issue 37 item 6: `agent acp` (the compiled binary) with no model provider anywhere answers the editor's
// session/new with a JSON-RPC error that says what to set up (the same help as `agent exec`, plus
// `agent setup`), instead of "Internal error: the daemon exited ..." with the middle of the terminal help;
// no session is left behind.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { startEditor, world, type Editor } from "./editor.ts";

const editors: Editor[] = [];
beforeAll(() => ensureBinary(), 300_000);
afterAll(async () => {
  for (const e of editors) await e.close();
});

describe("agent acp without a provider", () => {
  test("session/new is refused with auth_required naming the key variables, a config example and agent setup", async () => {
    const w = world({ script: "responses: []\n", config: "" });
    const e = await startEditor(w, { binary: BINARY });
    editors.push(e);
    const error = (await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] }).then(
      () => null,
      (err: unknown) => err,
    )) as { code: number; message: string; data?: unknown } | null;
    expect(error).not.toBeNull();
    expect(error!.code).toBe(-32000);
    expect(error!.data).toEqual({ reason: "no_model_provider" });
    expect(error!.message).toContain("No model provider is configured");
    expect(error!.message).toContain("export ANTHROPIC_API_KEY=...");
    expect(error!.message).toContain("start 'agent acp --demo'");
    expect(error!.message).toContain("Or run 'agent setup' in a terminal");
    expect(error!.message).not.toContain("daemon exited");
    const list = w.agent(["sessions", "list", "--json"]);
    expect(list.stdout).toBe("");
  }, 60_000);
});
