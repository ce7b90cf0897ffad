// Extensions in a session: approval asked once per version and content (approve loads it and its tool
// runs in a turn; reject is remembered; a new version or changed files ask again), headless runs never
// load an unapproved one, `plugins.<name>` reaches it unchanged, and /extensions lists them.
import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { approvalsFile } from "../../src/agent/extensions/approvals.ts";
import { SESSION_LOG_FILE } from "../../src/agent/session-log.ts";
import { SessionPrinter } from "../../src/cli/session-printer.ts";
import type { SyncRecord } from "../../src/protocol/sync-record.ts";
import { dataRoot } from "../../src/config/files.ts";
import { installSample, globalExtensionDir, openSession, projectExtensionDir, sampleRuns } from "./fixtures/extensions/helpers.ts";
import { makeProject, scriptedConfig, waitFor } from "./harness.ts";

const GREET_TURN = `responses:
  - tool_calls:
      - { name: ext__sample__greet, arguments: { who: Ada } }
  - text: done
`;
const PLUGINS = `plugins:\n  sample: { greeting: "hi there", list: [1, "two", { three: 3 }], nothing: null }\n`;

function textOf(message: { content: { type: string; text?: string }[] }): string {
  return message.content.map((c) => c.text ?? "").join("");
}

describe("extension approval", () => {
  test("approve: nothing runs before the answer; then its tool runs in a turn with plugins.sample unchanged, and its reminder reaches the model", async () => {
    const p = makeProject(scriptedConfig(PLUGINS), { "script.yaml": GREET_TURN });
    const dir = installSample(projectExtensionDir(p, "sample"));
    const before = sampleRuns();
    const s = await openSession(p, true);
    const [q] = s.approvals();
    expect(q).toMatchObject({ kind: "extension_approval", name: "sample", version: "1.0.0", origin: "project", capabilities: ["tools", "system_reminders"] });
    expect(q!.kind === "extension_approval" && q!.path).toBe(dir);
    expect(q!.kind === "extension_approval" && q!.reason).toContain("has not been approved before");
    expect(sampleRuns()).toBe(before);
    expect(s.created.extensions.tools()).toEqual([]);

    s.created.session.answer(q!.id, { decision: "approve" });
    await waitFor(() => s.created.extensions.tools().length === 2, "the extension to load");
    expect(sampleRuns()).toBe(before + 1);
    expect(s.changes()).toBe(1);
    expect(s.of("notice").map((n) => n.message)).toContain("extension sample 1.0.0 loaded (2 tools, 1 reminder)");

    s.created.session.submit({ text: "greet Ada" });
    await s.created.session.idle();
    const result = s.of("tool_call_completed")[0]!.result;
    expect(result).toMatchObject({ name: "ext__sample__greet", status: "completed" });
    expect(result.output).toBe(`hello Ada; config {"greeting":"hi there","list":[1,"two",{"three":3}],"nothing":null}`);
    const reminders = s.of("user_message").filter((e) => e.message.origin === "reminder").map((e) => textOf(e.message));
    expect(reminders).toContain('<system-reminder name="ext__sample__weather">\nThe sample extension says: it is sunny.\n</system-reminder>');

    const file = approvalsFile(dataRoot(p.env));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8")).decisions).toMatchObject([{ name: "sample", version: "1.0.0", decision: "approved", path: dir }]);
    await s.created.session.close();

    // The next session loads it before the first turn without asking.
    const next = await openSession(p, true);
    expect(next.approvals()).toEqual([]);
    expect(next.created.extensions.tools().map((t) => t.name)).toEqual(["ext__sample__greet", "ext__sample__explode"]);
    await next.created.session.close();
  });

  test("reject: not loaded, remembered by the next session, and /extensions approve loads it", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": "responses:\n  - text: ok\n" });
    installSample(globalExtensionDir(p, "sample"));
    const before = sampleRuns();
    const s = await openSession(p, true);
    const [q] = s.approvals();
    expect(q).toMatchObject({ origin: "global" });
    s.created.session.answer(q!.id, { decision: "reject", message: "not now" });
    await waitFor(() => s.of("notice").length > 0, "the rejection notice");
    expect(s.of("notice")[0]!.message).toContain("extension sample 1.0.0 rejected");
    expect(s.created.extensions.tools()).toEqual([]);
    expect(sampleRuns()).toBe(before);
    await s.created.session.close();

    const next = await openSession(p, true);
    expect(next.approvals()).toEqual([]);
    expect(next.notices.join("\n")).toContain("extension sample 1.0.0 is not loaded: you rejected version 1.0.0");
    const listed = await next.created.session.command("extensions", []);
    expect(listed.message).toMatch(/^sample 1\.0\.0 \[global\]: rejected \(you rejected version 1\.0\.0 on \d{4}-\d\d-\d\d\)$/);
    const approved = await next.created.session.command("extensions", ["approve", "sample"]);
    expect(approved.message).toBe("sample 1.0.0 [global]: loaded (ext__sample__greet, ext__sample__explode, ext__sample__weather)");
    expect(next.changes()).toBe(1);
    expect(sampleRuns()).toBe(before + 1);
    await next.created.session.close();
  });

  test("a new version asks again; so do changed files under the same version", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": "responses:\n  - text: ok\n" });
    const dir = installSample(projectExtensionDir(p, "sample"));
    const first = await openSession(p, true);
    first.created.session.answer(first.approvals()[0]!.id, { decision: "approve" });
    await waitFor(() => first.changes() === 1, "the load");
    await first.created.session.close();

    installSample(dir, "1.1.0");
    const second = await openSession(p, true);
    const [q] = second.approvals();
    expect(q).toMatchObject({ version: "1.1.0" });
    expect(q!.kind === "extension_approval" && q!.reason).toContain("a new version (you decided on 1.0.0 before)");
    expect(second.created.extensions.tools()).toEqual([]);
    second.created.session.answer(q!.id, { decision: "approve" });
    await waitFor(() => second.changes() === 1, "the load");
    await second.created.session.close();

    appendFileSync(join(dir, "index.ts"), "\n// an edit without a new version\n");
    const third = await openSession(p, true);
    expect(third.approvals()).toHaveLength(1);
    const [changed] = third.approvals();
    expect(changed!.kind === "extension_approval" && changed!.reason).toContain("files changed since you decided on this version");
    await third.created.session.close();
    // Closing withdraws the open question; the next session asks it again.
    expect(third.of("interrogative_closed")).toMatchObject([{ outcome: "withdrawn" }]);
  });

  test("an approval question stays open across turns", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": "responses:\n  - text: one\n  - text: two\n" });
    installSample(projectExtensionDir(p, "sample"));
    const s = await openSession(p, true);
    s.created.session.submit({ text: "hello" });
    await s.created.session.idle();
    expect(s.created.session.pendingInterrogatives().map((q) => q.kind)).toEqual(["extension_approval"]);
    s.created.session.answer(s.approvals()[0]!.id, { decision: "approve" });
    await waitFor(() => s.changes() === 1, "the load");
    await s.created.session.close();
  });
});

describe("headless runs", () => {
  test("never load an unapproved extension and say so; an approved one loads", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": "responses:\n  - text: ok\n" });
    const dir = installSample(projectExtensionDir(p, "sample"));
    const before = sampleRuns();
    const s = await openSession(p, false);
    expect(s.approvals()).toEqual([]);
    expect(s.notices).toContain(`extension sample 1.0.0 (${dir}) is not approved, so it was not loaded; start an interactive session (agent new) in this project to approve it`);
    expect(s.created.extensions.tools()).toEqual([]);
    expect(s.created.live.tools.list().some((t) => t.name.startsWith("ext__"))).toBe(false);
    expect(sampleRuns()).toBe(before);
    await s.created.session.close();

    const interactive = await openSession(p, true);
    interactive.created.session.answer(interactive.approvals()[0]!.id, { decision: "approve" });
    await waitFor(() => interactive.changes() === 1, "the load");
    await interactive.created.session.close();
    const again = await openSession(p, false);
    expect(again.created.extensions.tools()).toHaveLength(2);
    await again.created.session.close();
  });
});

describe("plugins and /extensions", () => {
  test("a plugins entry naming no extension is reported; /extensions says where extensions live", async () => {
    const p = makeProject(scriptedConfig("plugins:\n  ghost: { x: 1 }\n"), { "script.yaml": "responses:\n  - text: ok\n" });
    const s = await openSession(p, true);
    expect(s.notices.find((n) => n.startsWith("plugins.ghost"))).toContain("plugins.ghost: no extension named ghost was found (looked in ");
    expect((await s.created.session.command("extensions", [])).message).toContain("No extensions found");
    await expect(s.created.session.command("extensions", ["approve", "ghost"])).rejects.toMatchObject({ code: "invalid_command", message: "no extension is named 'ghost' (none were found)" });
    await expect(s.created.session.command("extensions", ["zap"])).rejects.toMatchObject({ code: "invalid_command", message: "unknown /extensions action 'zap'; allowed: list, approve" });
    await s.created.session.close();
  });

  test("a project extension wins over a global one of the same name, and the notice says so", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": "responses:\n  - text: ok\n" });
    const global = installSample(globalExtensionDir(p, "sample"), "2.0.0");
    const project = installSample(projectExtensionDir(p, "sample"), "1.0.0");
    const s = await openSession(p, true);
    expect(s.notices).toContain(`extension sample: the project one (${project}) is used instead of the global one (${global})`);
    expect(s.approvals()).toMatchObject([{ name: "sample", version: "1.0.0", origin: "project" }]);
    await s.created.session.close();
  });

  test("/extensions lists an awaiting extension and refuses approve while its question is open", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": "responses:\n  - text: ok\n" });
    installSample(projectExtensionDir(p, "sample"));
    const s = await openSession(p, true);
    const listed = await s.created.session.command("extensions", ["list"]);
    expect(listed.message).toBe("sample 1.0.0 [project]: awaiting approval");
    expect(listed.data!.extensions).toEqual([{ name: "sample", origin: "project", state: "awaiting_approval", version: "1.0.0", description: "Greets people and reports the weather (a test fixture).", capabilities: ["tools", "system_reminders"], tools: [], system_reminders: [] }]);
    await expect(s.created.session.command("extensions", ["approve", "sample"])).rejects.toMatchObject({ code: "command_unavailable", message: expect.stringContaining("answer its open question instead") });
    await s.created.session.close();
  });

  test("the session log records loads and failures", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": "responses:\n  - tool_calls:\n      - { name: ext__sample__explode, arguments: {} }\n  - text: done\n" });
    installSample(projectExtensionDir(p, "sample"));
    const sessionDir = join(p.root, "..", "session");
    mkdirSync(sessionDir);
    const s = await openSession(p, true, sessionDir);
    s.created.session.answer(s.approvals()[0]!.id, { decision: "approve" });
    await waitFor(() => s.changes() === 1, "the load");
    s.created.session.submit({ text: "explode" });
    await s.created.session.idle();
    const result = s.of("tool_call_completed")[0]!.result;
    expect(result.status).toBe("error");
    expect(result.output).toBe("`ext__sample__explode` failed: kaboom from the sample extension");
    expect(s.of("notice").map((n) => n.message)).toContain("extension tool ext__sample__explode failed: kaboom from the sample extension");
    const log = readFileSync(join(sessionDir, SESSION_LOG_FILE), "utf8");
    expect(log).toContain("info ext:sample: sample extension started");
    expect(log).toContain("warning ext:sample: extension tool ext__sample__explode failed: kaboom from the sample extension");
    // The session goes on: the turn ended normally after the failed call.
    expect(s.of("turn_completed")[0]!.stop_reason).toBe("end_turn");
    await s.created.session.close();
  });
});

describe("the plain session printer", () => {
  test("shows an extension approval as an approve question (y approves, anything else rejects)", () => {
    let err = "";
    const printer = new SessionPrinter({ out: () => {}, err: (t) => (err += t), isTty: false, cwd: "/", env: {}, stdin: async () => "" });
    const interrogative = { id: "ask_1", kind: "extension_approval", name: "sample", version: "1.0.0", description: "d", origin: "project", path: "/p/.agent/extensions/sample", capabilities: ["tools"], reason: "new" };
    printer.print([{ type: "interrogative_opened", interrogative } as unknown as SyncRecord]);
    expect(err).toBe("? approve extension sample 1.0.0 (tools) from /p/.agent/extensions/sample? [y/N]\n");
    expect(printer.questions).toEqual([{ id: "ask_1", text: "approve extension sample 1.0.0 (tools) from /p/.agent/extensions/sample?" }]);
  });
});
