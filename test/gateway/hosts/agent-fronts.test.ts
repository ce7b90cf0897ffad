// A host agent's connections to fronts (src/gateway/hosts/agent/fronts.ts): it joins a real front with its
// host credential (the front holds it, presence online), logs each state change without the token, redials
// after a loss, explains a wrong --name (4004) and a refused token (401), pins a self-signed front's
// certificate (and refuses another), sends requests to the front that answered last and fails over when a
// connection is lost, and answers 503 no_front_reachable when none is connected.
import { afterEach, expect, test } from "bun:test";
import { ProtocolError } from "../../../src/protocol/errors.ts";
import { Fronts, normalizeFingerprint } from "../../../src/gateway/hosts/agent/fronts.ts";
import { retryDelayMs, BACKOFF_CAP_MS } from "../../../src/gateway/hosts/agent/backoff.ts";
import { hostOnline } from "../../../src/gateway/hosts/presence.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { selfSignedFiles, startTlsGateway } from "../registry/helpers.ts";
import { until } from "../sessions/helpers.ts";
import { startFront } from "./mux-pair.ts";

const gateways: TestGateway[] = [];
const agents: Fronts[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) a.stop();
  for (const g of gateways.splice(0)) await g.stop();
});

type Line = { level: string; event: string; fields: Record<string, unknown> };
function recorder() {
  const lines: Line[] = [];
  const logger = { info() {}, warn() {}, error() {}, event: (level: string, event: string, fields: Record<string, unknown>) => void lines.push({ level, event, fields }) };
  return { lines, logger, events: () => lines.map((l) => l.event) };
}

async function front(extra = ""): Promise<TestGateway> {
  const gw = await startTestGateway(`host_name: front-a\n${extra}`);
  gateways.push(gw);
  return gw;
}

function agent(options: Partial<ConstructorParameters<typeof Fronts>[0]> & { urls: string[]; token: string }) {
  const log = recorder();
  const fronts = new Fronts({ hostName: "build-1", fingerprints: [], handler: async (req) => Response.json({ path: new URL(req.url).pathname }), logger: log.logger, ...options });
  agents.push(fronts);
  fronts.start();
  return { fronts, ...log };
}

test("backoff: exponential, jittered within the upper half of each step, capped", () => {
  expect(retryDelayMs(0, () => 0)).toBe(250);
  expect(retryDelayMs(0, () => 1)).toBe(500);
  expect(retryDelayMs(3, () => 0.5)).toBe(3000);
  expect(retryDelayMs(40, () => 1)).toBe(BACKOFF_CAP_MS);
  expect(retryDelayMs(40, () => 0)).toBe(BACKOFF_CAP_MS / 2);
});

test("fingerprints: SHA256:-prefixed, colon or bare hex, any case; anything else is null", () => {
  const hex = "ab".repeat(32);
  const want = "AB:".repeat(31) + "AB";
  expect(normalizeFingerprint(`SHA256:${want}`)).toBe(want);
  expect(normalizeFingerprint(hex)).toBe(want);
  expect(normalizeFingerprint(want.toLowerCase())).toBe(want);
  expect(normalizeFingerprint("SHA256:abcd")).toBeNull();
  expect(normalizeFingerprint("zz".repeat(32))).toBeNull();
});

test("joins a real front with its host credential: the front holds the connection, the host is online, the front reaches the host API; the token is in no log line", async () => {
  const gw = await front();
  const { token } = await gw.ctx.hostCredentials.create("build-1");
  const { lines, events } = agent({ urls: [gw.url], token });
  await until(() => gw.ctx.hostLinks.get("build-1") !== undefined, "the front to hold the host");
  await until(() => hostOnline(gw.ctx, "build-1"), "the host to be online");
  const res = await gw.ctx.hostLinks.get("build-1")!.fetch(new Request("http://host/host/v1/ping"));
  expect(await res.json()).toEqual({ path: "/host/v1/ping" });
  expect(events()).toEqual(["host.front_connected"]);
  expect(lines[0]!.fields).toMatchObject({ front: new URL(gw.url).origin, front_id: "front-a", protocol: 1 });
  expect(JSON.stringify(lines)).not.toContain(token);
});

test("a host API handler that fails: the front gets a 502 without the reason, the host's log has it", async () => {
  const gw = await front();
  const { token } = await gw.ctx.hostCredentials.create("build-1");
  const { lines } = agent({ urls: [gw.url], token, handler: async () => { throw new Error("disk on fire"); } });
  await until(() => gw.ctx.hostLinks.get("build-1") !== undefined, "the connection");
  const res = await gw.ctx.hostLinks.get("build-1")!.fetch(new Request("http://host/host/v1/sessions/ses_x/stop", { method: "POST" }));
  expect(res.status).toBe(502);
  expect(await res.text()).not.toContain("disk on fire");
  await until(() => lines.some((l) => l.event === "host.handler_failed"), "the log line");
  expect(lines.find((l) => l.event === "host.handler_failed")!.fields).toMatchObject({ method: "POST", path: "/host/v1/sessions/ses_x/stop", error: "disk on fire" });
});

test("a lost connection is logged and redialed after a backoff; the front holds the host again", async () => {
  const gw = await front();
  const { token } = await gw.ctx.hostCredentials.create("build-1");
  const { lines, events } = agent({ urls: [gw.url], token });
  await until(() => gw.ctx.hostLinks.get("build-1") !== undefined, "the first connection");
  const first = gw.ctx.hostLinks.get("build-1")!;
  first.close(1011, "front went wrong");
  await until(() => events().filter((e) => e === "host.front_connected").length === 2, "the reconnection");
  expect(events()).toEqual(["host.front_connected", "host.front_lost", "host.front_retrying", "host.front_connected"]);
  expect(lines[1]!.fields).toMatchObject({ code: 1011, reason: "1011: front went wrong" });
  expect(lines[2]!.fields.in_s).toBeGreaterThan(0);
  expect(gw.ctx.hostLinks.get("build-1")).not.toBe(first);
});

test("--name other than the token's host: the front's 4004 is explained (which flag, which command) and retried", async () => {
  const gw = await front();
  const { token } = await gw.ctx.hostCredentials.create("build-1");
  const { lines } = agent({ urls: [gw.url], token, hostName: "build-2" });
  await until(() => lines.some((l) => l.event === "host.front_retrying"), "the refusal");
  await until(() => lines.filter((l) => l.event === "host.front_retrying").length === 2, "the second refusal");
  const lost = lines.find((l) => l.event === "host.front_lost")!;
  expect(lost.fields.code).toBe(4004);
  // Refused right after each connection: the backoff keeps growing (it restarts only after a lasting connection).
  const waits = lines.filter((l) => l.event === "host.front_retrying").map((l) => l.fields.in_s as number);
  expect(waits[1]).toBeGreaterThanOrEqual(0.5);
  expect(waits[0]).toBeLessThanOrEqual(0.5);
  expect(String(lost.fields.reason)).toContain("the front refused host name build-2");
  expect(String(lost.fields.reason)).toContain("--name must be the host the token was created for");
  expect(gw.ctx.hostLinks.get("build-2")).toBeUndefined();
});

test("a second agent with the same --name: the first one's connection is replaced (4005), which its log explains", async () => {
  const gw = await front();
  const { token } = await gw.ctx.hostCredentials.create("build-1");
  const first = agent({ urls: [gw.url], token });
  await until(() => gw.ctx.hostLinks.get("build-1") !== undefined, "the first connection");
  agent({ urls: [gw.url], token });
  await until(() => first.lines.some((l) => l.event === "host.front_lost"), "the replacement");
  const lost = first.lines.find((l) => l.event === "host.front_lost")!;
  expect(lost.fields.code).toBe(4005);
  expect(String(lost.fields.reason)).toContain("is another host agent running with --name build-1?");
});

test("a refused token (401) is explained and retried; nothing is held", async () => {
  const gw = await front();
  const { lines } = agent({ urls: [gw.url], token: "hst_" + "x".repeat(43) });
  await until(() => lines.some((l) => l.event === "host.front_retrying"), "the refusal");
  expect(lines[0]!.event).toBe("host.front_retrying");
  expect(String(lines[0]!.fields.error)).toContain("401");
  expect(String(lines[0]!.fields.error)).toContain("the front refused the host token");
  expect(JSON.stringify(lines)).not.toContain("x".repeat(43));
  expect(gw.ctx.hostLinks.all()).toHaveLength(0);
});

test("a self-signed front: refused without a pin (system CAs) and with another pin; joined with its pinned fingerprint", async () => {
  const files = await selfSignedFiles();
  const gw = await startTlsGateway(files);
  gateways.push(gw);
  const { token } = await gw.ctx.hostCredentials.create("build-1");
  const url = `https://localhost:${gw.server.port}`;

  const unpinned = agent({ urls: [url], token });
  await until(() => unpinned.lines.some((l) => l.event === "host.front_retrying"), "the unpinned refusal");
  unpinned.fronts.stop();
  const other = "AB:".repeat(31) + "AB";
  const wrong = agent({ urls: [url], token, fingerprints: [other] });
  await until(() => wrong.lines.some((l) => l.event === "host.front_retrying"), "the wrong pin's refusal");
  wrong.fronts.stop();
  expect(String(wrong.lines[0]!.fields.error)).toContain(`(SHA-256 ${files.material.fingerprint}) is not a pinned one (--tls-fingerprint); refusing to send the host token`);
  expect(gw.ctx.hostLinks.all()).toHaveLength(0);

  const pinned = agent({ urls: [url], token, fingerprints: [files.material.fingerprint] });
  await until(() => gw.ctx.hostLinks.get("build-1") !== undefined, "the pinned connection");
  expect(pinned.events()).toEqual(["host.front_connected"]);
});

test("requests go to the front that answered last and fail over when its connection is lost; none connected: 503 no_front_reachable", async () => {
  const a = startFront({ hello: { name: "front-a" } });
  const b = startFront({ hello: { name: "front-b" } });
  const served = (name: string) => (c: Awaited<ReturnType<typeof a.next>>) => c.serve(async () => Response.json({ front: name }));
  const base = (f: { url: string }) => f.url.replace("/api/v1/hosts/connect", "");
  const { fronts } = agent({ urls: [base(a), base(b)], token: "hst_test" });
  const [fa, fb] = await Promise.all([a.next(), b.next()]);
  served("a")(fa);
  served("b")(fb);
  await until(() => fronts.connected().length === 2, "both connections");
  const ask = async () => (await (await fronts.fetch(() => new Request("http://front/x"))).json()).front;
  const firstAnswer = await ask();
  // Sticky: the front that answered last answers again.
  expect(await ask()).toBe(firstAnswer);
  (firstAnswer === "a" ? fa : fb).close(1011, "front died");
  await until(() => fronts.connected().length === 1, "the loss");
  expect(await ask()).toBe(firstAnswer === "a" ? "b" : "a");
  fronts.stop();
  a.server.stop(true);
  b.server.stop(true);
  const refused = await fronts.fetch(() => new Request("http://front/x")).catch((e) => e);
  expect(refused).toBeInstanceOf(ProtocolError);
  expect(refused.status).toBe(503);
  expect(refused.code).toBe("no_front_reachable");
  expect(refused.message).toContain("no gateway front reachable from host build-1");
});
