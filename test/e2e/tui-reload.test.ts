// Issue 27 items 3 and 5 in a real terminal (compiled binary): the /model menu shows catalog models'
// prices (the daemon catalog carries `cost`), and /reload restarts the session's daemon so a config
// change (here a new model) is used, with the conversation kept and printed once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary } from "../helpers/binary.ts";
import { scriptedProject, send, Terminals } from "./tui-harness.ts";

const terminals = new Terminals();

beforeAll(() => ensureBinary(), 180_000);
afterAll(() => terminals.closeAll(), 60_000);

const count = (text: string, part: string) => text.split(part).length - 1;

describe("model prices and /reload (compiled binary, real terminal)", () => {
  test("/model lists prices; /reload loads a changed config and keeps the conversation", async () => {
    // A catalog provider (never called here): its models come with models.dev prices. It is the user's
    // (global config): a project's own provider would wait for trust.
    const p = scriptedProject('responses:\n  - text: "first answer"\n  - text: "second answer"\n', {
      env: { ANTHROPIC_API_KEY: "sk-ant-never-used" },
      globalConfig: 'providers:\n  claude: { kind: { type: catalog, name: anthropic }, auth: { type: static_key, key: "${ANTHROPIC_API_KEY}" } }\n',
    });
    const config = join(p.root, ".agent", "config.yaml");
    writeFileSync(config, readFileSync(config, "utf8").replace("providers:\n", "defaults: { full: test-scripted }\nproviders:\n"));
    const t = terminals.start(p, ["new"]);
    await t.waitFor((s) => /ready\s/.test(s.screen()), "the view");
    terminals.sessionOf(t, p);
    await send(t, "hello");
    await t.waitFor("first answer", "the first answer");
    await t.waitFor((s) => /ready\s/.test(s.screen()), "the turn to end");

    t.write("/model claude-haiku-4-5");
    await t.waitFor((s) => /claude-haiku-4-5.*\$1\/\$5 per M tokens/.test(s.screen()), "the price in the /model menu");
    t.write("\x15");
    await t.waitFor((s) => !s.screen().includes("per M tokens"), "the menu to close");

    appendFileSync(config, "models:\n  extra-model: { provider: offline, class: mini, context_window: 100000 }\n");
    await t.waitFor((s) => s.text().replace(/\s+/g, "").includes("keepstheconfigitstartedwithuntil/reload"), "the config change notice");
    await send(t, "/reload");
    await t.waitFor((s) => s.text().replace(/\s+/g, "").includes("configreloaded:thesession'sdaemonrunswiththecurrentconfigfiles"), "the reload");
    await t.waitFor((s) => /ready\s/.test(s.screen()), "the view live again");
    t.write("/model extra");
    await t.waitFor((s) => /extra-model\s+mini/.test(s.screen()), "the new model in the /model menu");
    t.write("\r");
    await t.waitFor("› /model extra-model", "the pick");
    t.write("\r");
    await t.waitFor("model: extra-model (was test-scripted)", "the switch to the new model");
    await send(t, "again");
    await t.waitFor("second answer", "a turn after the reload");
    expect(count(t.text(), "first answer")).toBe(1);
    expect(count(t.text(), "› hello")).toBe(1);
  }, 120_000);
});
