// Broken extensions are reported and skipped, never taking the session down: bad manifests (named by
// file and field), an import or factory that throws, returns beyond the approved capabilities, bad tool
// definitions. Extension tools pass the permission gate like built-ins and rules can name them.
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSessionFromConfig } from "../../src/agent/create-session.ts";
import { approvalsFile } from "../../src/agent/extensions/approvals.ts";
import { readManifest } from "../../src/agent/extensions/manifest.ts";
import { dataRoot } from "../../src/config/files.ts";
import { installSample, openSession, preApprove, projectExtensionDir, writeExtension } from "./fixtures/extensions/helpers.ts";
import { makeProject, scriptedConfig, waitFor } from "./harness.ts";

const OK = "responses:\n  - text: ok\n";
const TOOL = `({ name: "t", description: "A tool.", inputSchema: api.Type.Object({}), async run() { return "ran"; } })`;

function manifestProblem(dir: string): string {
  try {
    readManifest(dir);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the manifest was accepted");
}

describe("manifest problems name the file, the field and what is allowed", () => {
  const p = makeProject(scriptedConfig(), { "script.yaml": OK });
  const at = (name: string, manifest: Record<string, unknown>) => writeExtension(projectExtensionDir(p, name), "export default () => ({});", manifest);

  test("each field", () => {
    const bad = at("bad-version", { version: "one" });
    expect(manifestProblem(bad)).toBe(`${bad}/extension.json: field 'version' is "one"; it must be a version such as 1.2.0 (major.minor.patch, optional -prerelease)`);
    const caps = at("bad-caps", { capabilities: ["tools", "network"] });
    expect(manifestProblem(caps)).toBe(`${caps}/extension.json: field 'capabilities' is ["tools","network"]; it must be a non-empty list of distinct values from: tools, system_reminders`);
    const typo = at("typo", { capabilites: ["tools"] });
    expect(manifestProblem(typo)).toBe(`${typo}/extension.json: unknown field 'capabilites'; allowed fields: name, version, description, entry, capabilities`);
    const other = at("other-name", { name: "different" });
    expect(manifestProblem(other)).toBe(`${other}/extension.json: field 'name' is "different" but the directory is 'other-name'; they must be equal`);
    const missing = at("no-entry", { entry: "main.ts" });
    expect(manifestProblem(missing)).toContain(`${missing}/extension.json: field 'entry' is "main.ts": no such file;`);
  });

  test("an entry outside the directory is refused, also through a symbolic link", () => {
    const up = at("escape", { entry: "../escape.js" });
    writeFileSync(join(up, "..", "escape.js"), "export default () => ({});");
    expect(manifestProblem(up)).toContain("field 'entry' is \"../escape.js\": it leads outside the extension directory");
    const linked = at("linked", { entry: "link.js" });
    symlinkSync(join(up, "..", "escape.js"), join(linked, "link.js"));
    expect(manifestProblem(linked)).toContain("it leads outside the extension directory");
  });

  test("a missing or broken manifest", () => {
    const none = projectExtensionDir(p, "empty");
    mkdirSync(none, { recursive: true });
    expect(manifestProblem(none)).toBe(`${none}/extension.json: missing; an extension directory needs an extension.json manifest`);
    writeFileSync(join(none, "extension.json"), "{ nope");
    expect(manifestProblem(none)).toStartWith(`${none}/extension.json: not valid JSON (`);
  });
});

describe("failing extensions are reported and skipped", () => {
  test("an invalid manifest, an import that throws and a factory that throws: each a notice, the others load", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": OK });
    writeExtension(projectExtensionDir(p, "bad-manifest"), "export default () => ({});", { version: "latest" });
    const importer = writeExtension(projectExtensionDir(p, "importer"), 'throw new Error("boom at import");\nexport default () => ({});');
    const factory = writeExtension(projectExtensionDir(p, "factory"), 'export default () => { throw new Error("boom in factory"); };');
    const good = installSample(projectExtensionDir(p, "sample"));
    for (const dir of [importer, factory, good]) preApprove(p, dir);
    const sessionDir = join(p.root, "..", "sd");
    mkdirSync(sessionDir);
    const s = await openSession(p, false, sessionDir);
    const notices = s.notices.join("\n");
    expect(notices).toContain(`extension bad-manifest was skipped: ${projectExtensionDir(p, "bad-manifest")}/extension.json: field 'version' is "latest"`);
    expect(notices).toContain(`extension importer 0.1.0 failed to load and was skipped: importing ${importer}/index.js failed: boom at import`);
    expect(notices).toContain("extension factory 0.1.0 failed to load and was skipped: its default function threw: boom in factory");
    expect(s.created.extensions.tools().map((t) => t.name)).toEqual(["ext__sample__greet", "ext__sample__explode"]);
    expect(s.created.extensions.list().map((e) => [e.name, e.state])).toEqual([["bad-manifest", "failed"], ["factory", "failed"], ["importer", "failed"], ["sample", "loaded"]]);
    expect(s.created.extensions.catalog().map((e) => e.name)).toEqual(["sample"]);
    s.created.session.submit({ text: "still works" });
    await s.created.session.idle();
    expect(s.of("turn_completed")[0]!.stop_reason).toBe("end_turn");
    await s.created.session.close();
  });

  test("a factory that fails after an interactive approval is a warning notice in the session", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": OK });
    writeExtension(projectExtensionDir(p, "later"), 'export default async () => { throw new Error("cannot start"); };');
    const s = await openSession(p, true);
    s.created.session.answer(s.approvals()[0]!.id, { decision: "approve" });
    await waitFor(() => s.of("notice").length > 0, "the failure notice");
    expect(s.of("notice")[0]).toEqual({ type: "notice", level: "warning", message: "extension later 0.1.0 failed to load and was skipped: its default function threw: cannot start" });
    expect(s.changes()).toBe(0);
    await s.created.session.close();
  });

  test("what it returns must fit its approved capabilities and the tool contract", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": OK });
    const cases: [string, string, string][] = [
      ["sneaky", `export default ({ api }) => ({ reminders: [{ name: "r", text: () => "x" }] });`, "it returned reminders but its manifest does not declare the 'system_reminders' capability (approved: tools)"],
      ["noschema", `export default () => ({ tools: [{ name: "t", description: "d", inputSchema: { type: "object" }, run() {} }] });`, "tool 't': inputSchema must be an object schema built with api.Type.Object(...)"],
      ["badname", `export default ({ api }) => ({ tools: [{ ...${TOOL}, name: "Bad Name" }] });`, `tools[0].name is "Bad Name"; it must be lowercase letters, digits, _ and -, starting with a letter`],
      ["twice", `export default ({ api }) => ({ tools: [${TOOL}, ${TOOL}] });`, "it returned two tools or reminders named 't'"],
      ["extra", `export default () => ({ tools: [], commands: [] });`, "it returned the unknown field 'commands'; allowed: tools, reminders"],
      ["nodefault", `export const x = 1;`, "must export a default function (got nothing)"],
    ];
    for (const [name, source] of cases) preApprove(p, writeExtension(projectExtensionDir(p, name), source));
    const s = await openSession(p, false);
    for (const [name, , problem] of cases) {
      const line = s.notices.find((n) => n.startsWith(`extension ${name} `));
      expect(line).toContain(problem);
    }
    expect(s.created.extensions.tools()).toEqual([]);
    await s.created.session.close();
  });

  test("a tool returning a plain string is its output; a reminder that throws is reported once and turned off", async () => {
    const source = `export default ({ api }) => ({
  tools: [${TOOL}],
  reminders: [{ name: "flaky", text: () => { throw new Error("no forecast"); } }],
});`;
    const p = makeProject(scriptedConfig(), { "script.yaml": "responses:\n  - tool_calls:\n      - { name: ext__plain__t, arguments: {} }\n  - text: done\n" });
    preApprove(p, writeExtension(projectExtensionDir(p, "plain"), source, { capabilities: ["tools", "system_reminders"] }));
    const s = await openSession(p, false);
    s.created.session.submit({ text: "go" });
    await s.created.session.idle();
    expect(s.of("tool_call_completed")[0]!.result).toMatchObject({ name: "ext__plain__t", status: "completed", output: "ran" });
    expect(s.of("notice").map((n) => n.message)).toEqual(["extension reminder ext__plain__flaky failed and is off for this session: no forecast"]);
    await s.created.session.close();
  });
});

describe("the approvals file", () => {
  test("a damaged or newer file loads nothing, asks nothing and says which file to fix", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": OK });
    const dir = installSample(projectExtensionDir(p, "sample"));
    preApprove(p, dir);
    const file = approvalsFile(dataRoot(p.env));
    writeFileSync(file, "{ not json");
    const s = await openSession(p, true);
    expect(s.notices).toContain(`extension sample is not loaded: ${file}: not valid JSON; fix or delete it (every extension will then ask again)`);
    expect(s.approvals()).toEqual([]);
    expect(s.created.extensions.tools()).toEqual([]);
    await s.created.session.close();
    writeFileSync(file, JSON.stringify({ version: 2, decisions: [] }));
    const newer = await openSession(p, false);
    expect(newer.notices).toContain(`extension sample is not loaded: ${file} was written by a newer agent (version 2); update agent`);
    await newer.created.session.close();
  });
});

describe("while asking", () => {
  test("an approvals file damaged after the start is a notice, not a crash", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": OK });
    installSample(projectExtensionDir(p, "sample"));
    const created = await createSessionFromConfig({ cwd: p.root, env: p.env, interactive: true, untrusted: "keep" });
    const notices: string[] = [];
    created.session.subscribe((e) => e.type === "notice" && notices.push(e.message));
    mkdirSync(join(dataRoot(p.env), "extensions"), { recursive: true });
    writeFileSync(approvalsFile(dataRoot(p.env)), "[]");
    created.extensions.askApprovals();
    await waitFor(() => notices.length > 0, "the notice");
    expect(notices[0]).toStartWith("extension sample was not loaded: ");
    expect(notices[0]).toContain("not an approvals file");
    expect(created.extensions.list()[0]!.state).toBe("failed");
    await created.session.close();
  });
});

describe("the tool contract", () => {
  test("tools of one extension sharing a lock key never run at once", async () => {
    const source = `const state = (globalThis.__lockProbe ??= { running: 0, max: 0 });
const tool = (name) => ({
  name,
  description: "Holds the db lock for a moment.",
  inputSchema: api().Type.Object({}),
  exclusive: () => "db",
  async run() {
    state.running++;
    state.max = Math.max(state.max, state.running);
    await new Promise((r) => setTimeout(r, 20));
    state.running--;
    return name;
  },
});
let api = () => null;
export default (ctx) => { api = () => ctx.api; return { tools: [tool("a"), tool("b")] }; };`;
    const p = makeProject(scriptedConfig(), { "script.yaml": "responses:\n  - tool_calls:\n      - { name: ext__locks__a, arguments: {} }\n      - { name: ext__locks__b, arguments: {} }\n  - text: done\n" });
    preApprove(p, writeExtension(projectExtensionDir(p, "locks"), source));
    const s = await openSession(p, false);
    s.created.session.submit({ text: "go" });
    await s.created.session.idle();
    expect(s.of("tool_call_completed").map((e) => e.result.output).sort()).toEqual(["a", "b"]);
    expect((globalThis as Record<string, any>).__lockProbe.max).toBe(1);
    await s.created.session.close();
  });
});

describe("the permission gate", () => {
  test("rules name extension tools: an allowed one runs, a denied one does not", async () => {
    const script = `responses:
  - tool_calls:
      - { name: ext__sample__greet, arguments: { who: Bo } }
      - { name: ext__sample__explode, arguments: {} }
  - text: done
`;
    const p = makeProject(scriptedConfig("default_permission_matcher: standard\n"), {
      "script.yaml": script,
      ".agent/permissions.yaml": "allow:\n  - ext__sample__greet\ndeny:\n  - ext__sample__explode\n",
    });
    preApprove(p, installSample(projectExtensionDir(p, "sample")));
    const s = await openSession(p, false);
    s.created.session.submit({ text: "go" });
    await s.created.session.idle();
    const byName = new Map(s.of("tool_call_completed").map((e) => [e.result.name, e.result]));
    expect(byName.get("ext__sample__greet")).toMatchObject({ status: "completed", output: "hello Bo; config undefined" });
    expect(byName.get("ext__sample__explode")!.status).toBe("denied");
    expect(byName.get("ext__sample__explode")!.output).toContain("ext__sample__explode");
    await s.created.session.close();
  });

  test("a server-wide rule covers every tool of the extension; a read-only facet refuses them", async () => {
    const p = makeProject(scriptedConfig("default_permission_matcher: standard\n"), {
      "script.yaml": "responses:\n  - tool_calls:\n      - { name: ext__sample__greet, arguments: { who: Cy } }\n  - text: done\n",
      ".agent/permissions.yaml": "deny:\n  - ext__sample__*\n",
    });
    preApprove(p, installSample(projectExtensionDir(p, "sample")));
    const s = await openSession(p, false);
    s.created.session.submit({ text: "go" });
    await s.created.session.idle();
    expect(s.of("tool_call_completed")[0]!.result.status).toBe("denied");
    await s.created.session.command("facet", ["plan"]);
    // Still offered (the tool list is the same in every facet), refused if called.
    expect(s.created.session.engineRuntime.tools.refusal?.("ext__sample__greet")).toContain("read-only");
    await s.created.session.close();
  });
});
