// /compact and /clear through a real session daemon hosting the real engine (the config's session model
// and mini model are HTTP provider fakes): the HTTP answers, the journal, the history projection, and a
// daemon restarted on the same session dir resuming the compacted context from its store.
import { afterEach, describe, expect, test } from "bun:test";
import { configuredEngine } from "../../src/cli/daemon-run.ts";
import { buildHistory } from "../../src/daemon/history-items.ts";
import { startDaemon, type RunningDaemon } from "../../src/daemon/serve.ts";
import { openSession } from "../../src/daemon/store/index.ts";
import { startProviderFake, type FakeStep, type ProviderFake } from "../fakes/provider-fake.ts";
import { newOperation, tempSessionDir, TOKEN } from "../daemon/harness.ts";
import { makeProject, waitFor, type Project } from "./harness.ts";
import { twoModelConfig } from "./two-model-config.ts";

let fakes: ProviderFake[] = [];
let daemons: RunningDaemon[] = [];
afterEach(async () => {
  for (const d of daemons) await d.stop();
  for (const f of fakes) await f.stop();
  daemons = [];
  fakes = [];
});

const SUMMARY = "## Goal\nShip the release.\n## Progress\nTagged v1.\n## Decisions\nNo changelog.\n## Next steps\nPublish.\n## Files\nnone";
const answer = (text: string): FakeStep => ({ kind: "turn", turn: { text, usage: { input: 400, output: 10 } } });

function project(main: FakeStep[], mini: FakeStep[], daemon = ""): { project: Project; main: ProviderFake; mini: ProviderFake } {
  const m = startProviderFake("a_messages", main);
  const s = startProviderFake("a_messages", mini);
  fakes.push(m, s);
  const config = twoModelConfig({ main: m, mini: s, daemon: `retry: { max_retries: 0 }, compaction_max_retries: 0${daemon}` });
  return { project: makeProject(config), main: m, mini: s };
}

async function daemonFor(p: Project, dir: string) {
  const running = await startDaemon({ sessionDir: dir, project: p.root, credential: TOKEN, limits: { heartbeatMs: 0 }, engineFactory: configuredEngine(p.env, false, { untrusted: "keep" }).engineFactory }); // the project layer is this test's own provider
  daemons.push(running);
  const call = (path: string, body?: unknown) =>
    fetch(running.url + path, {
      method: body === undefined ? "GET" : "POST",
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const context = async () => {
    const snap = await (await call("/sync")).json();
    return { daemon_epoch: snap.daemon_epoch, window: snap.operation_window.window, operation: newOperation() };
  };
  const prompt = async (text: string) => {
    const res = await call("/prompt", { text, operation_context: await context() });
    expect(res.status).toBeLessThan(300);
    await waitFor(() => !running.daemon.host.busy, "the turn to end");
  };
  const command = async (name: string, args: string[] = []) => call(`/commands/${name}`, { args, operation_context: await context() });
  return { running, call, prompt, command };
}

describe("compaction through the daemon", () => {
  test("POST /commands/compact compacts, the journal and history show it, and a restarted daemon resumes the compacted context", async () => {
    const f = project([answer("Tagged v1."), answer("Done tagging."), answer("Publishing now.")], [{ kind: "turn", turn: { text: SUMMARY } }]);
    const dir = tempSessionDir();
    const d = await daemonFor(f.project, dir);
    await d.prompt("tag the release");
    await d.prompt("is it tagged?");
    const res = await d.command("compact", ["focus", "on", "publishing"]);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ name: "compact", operation: { status: "completed" }, data: { summary: SUMMARY } });
    expect(body.message).toStartWith("Compacted the context");
    await d.running.stop();
    daemons = [];

    const store = openSession(dir);
    const types = store.events().map((e) => e.type);
    expect(types).toContain("compaction_started");
    expect(types).toContain("context_compacted");
    const { items } = buildHistory(store.journal.all(), []);
    expect(items.filter((i) => i.kind === "context").map((i) => i.payload)).toEqual([expect.objectContaining({ event: "compacted", summary: SUMMARY, model: "s" })]);
    store.close();

    const again = await daemonFor(f.project, dir);
    await again.prompt("publish it");
    const sent = JSON.stringify(f.main.requests[2]!.body.messages);
    expect(sent).toContain("Ship the release.");
    expect(sent).toContain("is it tagged?");
    expect(sent).toContain("publish it");
    expect(sent).not.toContain("tag the release");
  });

  test("typed errors: /clear disabled by daemon.disable_context_clear (409), a failed summary (502), nothing to compact (409)", async () => {
    const f = project(
      [answer("Tagged v1."), answer("Done tagging.")],
      [{ kind: "error", status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "rejected" } } }],
      ", disable_context_clear: true",
    );
    const d = await daemonFor(f.project, tempSessionDir());
    const empty = await d.command("compact");
    expect(empty.status).toBe(409);
    expect(await empty.json()).toMatchObject({ code: "command_unavailable" });
    await d.prompt("tag the release");
    await d.prompt("is it tagged?");
    const clear = await d.command("clear");
    expect(clear.status).toBe(409);
    expect(await clear.json()).toMatchObject({ code: "command_unavailable", message: expect.stringContaining("daemon.disable_context_clear") });
    const failed = await d.command("compact");
    expect(failed.status).toBe(502);
    const failure = await failed.json();
    expect(failure.code).toBe("command_failed");
    expect(failure.message).toContain("Nothing was lost: the conversation is unchanged. Run /compact again later.");
    expect(failure.message).not.toContain("/clear");
    const list = await (await d.call("/commands")).json();
    expect(list.commands.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(["compact", "clear"]));
  });

  test("POST /commands/clear starts a fresh context", async () => {
    const f = project([answer("Tagged v1."), answer("Fresh.")], []);
    const d = await daemonFor(f.project, tempSessionDir());
    await d.prompt("tag the release");
    const res = await d.command("clear");
    expect(res.status).toBe(200);
    expect((await res.json()).message).toContain("Context cleared");
    await d.prompt("start over");
    expect(f.main.requests[1]!.body.messages).toHaveLength(1);
  });
});
