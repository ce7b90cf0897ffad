// Choices an editor makes (the SDK's client): the model as a session config option, and the login a
// provider needs before a session can start.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { saveProfile } from "../../src/providers/device-auth/profiles.ts";
import { startEditor, stopDaemons, world, type Editor } from "./editor.ts";

const editors: Editor[] = [];
const worlds: ReturnType<typeof world>[] = [];
afterAll(async () => {
  for (const e of editors) await e.close();
  for (const w of worlds) stopDaemons(w);
});

describe("agent acp: options", () => {
  test("the model is a config option: set_config_option switches it for the next turn and the session says so", async () => {
    const base = world({ script: "responses:\n  - text: one\n" });
    const w = world({
      script: "responses:\n  - text: one\n",
      config: `providers:\n  offline: { kind: { type: catalog, name: test }, url: ${join(base.base, "script.yaml")} }\nmodels:\n  second-model: { provider: offline, class: full, context_window: 32768 }\n`,
    });
    worlds.push(base, w);
    const e = await startEditor(w);
    editors.push(e);
    const created = await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] });
    const option = created.configOptions?.find((o) => o.id === "model");
    expect(option?.type).toBe("select");
    if (option?.type !== "select") return;
    const values = (option.options as { value: string }[]).map((o) => o.value);
    expect(values).toContain("second-model");
    const other = values.find((v) => v !== option.currentValue)!;
    const changed = await e.ctx.request("session/set_config_option", { sessionId: created.sessionId, configId: "model", value: other });
    expect(changed.configOptions.find((o) => o.id === "model")?.currentValue).toBe(other);
    await e.waitFor((n) => n.update.sessionUpdate === "config_option_update" && n.update.configOptions[0]?.currentValue === other);
    const bad = await e.ctx.request("session/set_config_option", { sessionId: created.sessionId, configId: "model", value: "no-such-model" }).then(() => null, (error: Error) => error);
    expect(bad?.message).toContain("no-such-model");
  });

  test("a provider with a device login: an auth method; session/new asks for the login until it is stored", async () => {
    const w = world({
      script: "responses:\n  - text: one\n",
      config: `providers:\n  coding-plan:\n    kind: { type: custom_b_compatible }\n    url: http://127.0.0.1:9/v1\n    auth: { type: device_a, profile: work, client_id: agent-cli, device_authorization_endpoint: "http://127.0.0.1:9/device/code", token_endpoint: "http://127.0.0.1:9/token" }\nmodels:\n  plan-model: { provider: coding-plan, class: full, context_window: 32768 }\n`,
    });
    worlds.push(w);
    const e = await startEditor(w);
    editors.push(e);
    const init = await e.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: { auth: { terminal: true } } });
    expect(init.authMethods).toEqual([
      { type: "terminal", id: "provider:coding-plan", name: "Log in to coding-plan", description: "Provider 'coding-plan' uses a device login (device_a).", args: ["auth", "provider", "login", "--provider", "coding-plan"] },
    ]);
    const refused = await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] }).then(() => null, (error: Error & { code?: number }) => error);
    expect(refused?.code).toBe(-32000);
    expect(refused?.message).toContain("agent auth provider login --provider coding-plan");
    const early = await e.ctx.request("authenticate", { methodId: "provider:coding-plan" }).then(() => null, (error: Error & { code?: number }) => error);
    expect(early?.code).toBe(-32000);
    const now = new Date().toISOString();
    saveProfile(join(w.env.XDG_DATA_HOME!, "agent"), { version: 1, kind: "device_a", profile: "work", provider: "coding-plan", tokens: { access_token: "at", refresh_token: "rt", expires_at: Date.now() + 3_600_000, token_type: "Bearer", scope: null }, created_at: now, updated_at: now });
    expect(await e.ctx.request("authenticate", { methodId: "provider:coding-plan" })).toEqual({});
  });
});
