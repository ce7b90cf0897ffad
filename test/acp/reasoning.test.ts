// The reasoning level as a session config option (category thought_level), seen from editors (the SDK's
// client): offered for a model with effort levels, switched through /model `name(level)` so a second
// editor on the same session is told too, refused for a level the model lacks, gone for a model without
// levels.
import { afterAll, describe, expect, test } from "bun:test";
import type { SessionConfigOption } from "@agentclientprotocol/sdk";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentText, startEditor, stopDaemons, world, type Editor } from "./editor.ts";

// No config from world(): it is written below, naming the world's own script.
const w = world({ script: "responses:\n  - text: one\n", config: "" });
const script = join(w.base, "script.yaml");
// An effort model (the default) and one without levels.
const config = `providers:\n  offline: { kind: { type: catalog, name: test }, url: ${script} }\nmodels:\n  deep: { provider: offline, class: full, context_window: 32768, reasoning: { type: effort, effort_set: standard, can_disable: false, levels: [low, medium, high], default_level: medium } }\n  flat: { provider: offline, class: full, context_window: 32768, reasoning: { type: no_reasoning } }\ndefaults: { full: deep }\n`;
writeFileSync(join(w.env.XDG_CONFIG_HOME!, "agent", "config.yaml"), config);

const editors: Editor[] = [];
afterAll(async () => {
  for (const e of editors) await e.close();
  stopDaemons(w);
});

const option = (options: SessionConfigOption[] | null | undefined, id: string) => options?.find((o) => o.id === id);
const values = (o: SessionConfigOption | undefined) => (o?.type === "select" ? (o.options as { value: string }[]).map((v) => v.value) : []);

describe("agent acp: reasoning level", () => {
  test("an effort model offers its levels; choosing one switches the model reference for every editor of the session", async () => {
    const a = await startEditor(w);
    editors.push(a);
    const created = await a.ctx.request("session/new", { cwd: w.project, mcpServers: [] });
    const sessionId = created.sessionId;
    expect(option(created.configOptions, "model")?.currentValue).toBe("deep");
    const reasoning = option(created.configOptions, "reasoning");
    expect(reasoning).toMatchObject({ name: "Reasoning", category: "thought_level", type: "select", currentValue: "medium" });
    expect(values(reasoning)).toEqual(["low", "medium", "high"]);

    // A second editor follows the same session.
    const b = await startEditor(w);
    editors.push(b);
    await b.ctx.request("session/load", { sessionId, cwd: w.project, mcpServers: [] });

    const changed = await a.ctx.request("session/set_config_option", { sessionId, configId: "reasoning", value: "high" });
    expect(option(changed.configOptions, "reasoning")?.currentValue).toBe("high");
    expect(option(changed.configOptions, "model")?.currentValue).toBe("deep");
    await b.waitFor((n) => n.update.sessionUpdate === "config_option_update" && option(n.update.configOptions, "reasoning")?.currentValue === "high");
    // The session itself runs deep(high) now.
    await a.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/model" }] });
    expect(agentText(a.updates)).toContain("model: deep(high)");

    // Back to the default level: the reference is the plain name again.
    await a.ctx.request("session/set_config_option", { sessionId, configId: "reasoning", value: "medium" });
    await b.waitFor((n) => n.update.sessionUpdate === "config_option_update" && option(n.update.configOptions, "reasoning")?.currentValue === "medium");

    const bad = await a.ctx.request("session/set_config_option", { sessionId, configId: "reasoning", value: "extreme" }).then(() => null, (error: Error & { code?: number }) => error);
    expect(bad?.code).toBe(-32602);
    expect(bad?.message).toContain("'extreme' is not a reasoning level of model 'deep'");
  });

  test("a model without levels has no reasoning option, and refuses a level", async () => {
    const e = editors[0]!;
    const { sessionId } = await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] });
    const changed = await e.ctx.request("session/set_config_option", { sessionId, configId: "model", value: "flat" });
    expect(option(changed.configOptions, "model")?.currentValue).toBe("flat");
    expect(option(changed.configOptions, "reasoning")).toBeUndefined();
    const refused = await e.ctx.request("session/set_config_option", { sessionId, configId: "reasoning", value: "high" }).then(() => null, (error: Error & { code?: number }) => error);
    expect(refused?.code).toBe(-32602);
    expect(refused?.message).toContain("model 'flat' takes no reasoning level");
  });
});
