// Real `agent daemon` and `agent exec` processes (bun src/cli/main.ts) with a local OTLP receiver: with
// the global telemetry block the daemon exports route spans and its engine's turn spans; without the
// block nothing is ever sent, whatever OTEL_* variables say.
import { afterEach, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { authed, promptAndWait as promptAndWaitFor, sandbox, spawnDemoDaemon, type Sandbox } from "./demo-daemon.ts";
import { startOtlpReceiver, type OtlpReceiver } from "./otlp-receiver.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");

let receiver: OtlpReceiver;
afterEach(() => receiver?.stop());


/** Whether a process runs a Bun Worker thread (Linux names it "Worker"): the export worker, in a daemon. */
const hasWorkerThread = (pid: number) =>
  readdirSync(`/proc/${pid}/task`).some((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim() === "Worker";
    } catch {
      return false;
    }
  });

async function runDaemon(box: Sandbox, work: (url: string, pid: number) => Promise<void>): Promise<void> {
  const { proc, url } = await spawnDemoDaemon(["bun", MAIN], box);
  try {
    await work(url, proc.pid);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}


const promptAndWait = (url: string) => promptAndWaitFor(url, "hello there, secret-prompt-words");

describe("telemetry in real processes", () => {
  test("agent daemon with the block: route spans and engine turn spans, role daemon, no prompt text", async () => {
    receiver = startOtlpReceiver();
    const counter = join(tmpdir(), `agent-telemetry-subst-${Date.now()}-${Math.random().toString(36).slice(2)}`);
    // Telemetry must not make the daemon load the config twice: substitution commands run once.
    const box = sandbox(`config_command_substitution: true\nintegrations: { search: { providers: { search_a: { key: "$(sh -c 'echo run >> ${counter}; echo k')" } } } }\ntelemetry: { endpoint: "${receiver.url}", protocol: http/protobuf }\n`);
    await runDaemon(box, async (url, pid) => {
      expect((await authed(`${url}/health`)).status).toBe(200);
      expect((await fetch(`${url}/health`)).status).toBe(401);
      await promptAndWait(url);
      await receiver.waitFor((spans) => spans.some((s) => s.name === "agent.turn"));
      expect(hasWorkerThread(pid)).toBe(true);
    });
    const spans = receiver.spans();
    const health = spans.filter((s) => s.name === "GET /health");
    expect(health.map((s) => s.attributes["http.response.status_code"]).sort()).toEqual([200, 401]);
    expect(health[0]!.attributes["http.route"]).toBe("/health");
    expect(health[0]!.kind).toBe(2); // server
    expect(spans.some((s) => s.name === "POST /prompt" && s.attributes["http.response.status_code"] === 202)).toBe(true);
    const turn = spans.find((s) => s.name === "agent.turn")!;
    expect(turn.resource["agent.role"]).toBe("daemon");
    expect(turn.resource["service.name"]).toBe("agent");
    expect(receiver.requests[0]!.contentType).toContain("application/x-protobuf");
    expect(Buffer.concat(receiver.requests.map((r) => r.body)).toString("latin1")).not.toContain("secret-prompt-words");
    expect(readFileSync(counter, "utf8")).toBe("run\n");
  }, 30000);

  test("agent daemon without the block sends nothing, even with OTEL_* variables pointing at a receiver", async () => {
    receiver = startOtlpReceiver();
    const box = sandbox("daemon: { max_tool_turns: 5 }\n", { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`, OTEL_TRACES_SAMPLER: "always_on", OTEL_SERVICE_NAME: "nope" });
    await runDaemon(box, async (url, pid) => {
      expect((await authed(`${url}/health`)).status).toBe(200);
      await promptAndWait(url);
      // No export worker is started either.
      expect(hasWorkerThread(pid)).toBe(false);
    });
    expect(receiver.requests).toHaveLength(0);
  }, 30000);

  test("agent exec: with the block the run's spans are flushed before exit; without it nothing is sent", async () => {
    receiver = startOtlpReceiver();
    // The default protocol: http/json.
    const withBlock = sandbox(`telemetry: { endpoint: "${receiver.url}" }\n`);
    // Spawned asynchronously: the receiver runs in this test's event loop.
    const exec = async (box: ReturnType<typeof sandbox>) => Bun.spawn(["bun", MAIN, "exec", "--demo", "say hello"], { cwd: box.project, env: box.env, stdout: "ignore", stderr: "ignore" }).exited;
    expect(await exec(withBlock)).toBe(0);
    const names = receiver.spans().map((s) => s.name);
    expect(names).toContain("agent.turn");
    expect(names).toContain("chat");
    expect(receiver.spans()[0]!.resource["agent.role"]).toBe("cli");
    expect(receiver.requests[0]!.contentType).toContain("application/json");

    const before = receiver.requests.length;
    const noBlock = sandbox(null, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(await exec(noBlock)).toBe(0);
    expect(receiver.requests.length).toBe(before);
  }, 30000);
});

test("agent gateway serve with the global telemetry block exports route spans, flushed on SIGTERM", async () => {
  receiver = startOtlpReceiver();
  const box = sandbox(`telemetry: { endpoint: "${receiver.url}" }\n`);
  const gatewayConfig = join(box.base, "gateway-config.yaml");
  writeFileSync(gatewayConfig, `data_dir: ${join(box.base, "gw-data")}\nlisten:\n  address: 127.0.0.1\n  port: 0\nauth:\n  password:\n    memory_kib: 8192\n    time_cost: 1\n`);
  const proc = Bun.spawn(["bun", MAIN, "gateway", "serve", "--config", gatewayConfig], { cwd: box.base, env: box.env, stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!/listening on (\S+)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`gateway exited early: ${await new Response(proc.stderr).text()}`);
    text += new TextDecoder().decode(value);
  }
  const url = /listening on (\S+)/.exec(text)![1]!;
  try {
    expect((await fetch(`${url}/api/v1/health`)).status).toBe(200);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
  const health = receiver.spans().find((s) => s.name === "GET /api/v1/health")!;
  expect(health.attributes["http.response.status_code"]).toBe(200);
  expect(health.resource["agent.role"]).toBe("gateway");
}, 30000);
