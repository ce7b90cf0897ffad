// The fields this room added to the global-only blocks: bad values are reported with the key path and
// what is allowed, and a project config may not set them.
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { formatProblem } from "../../src/config/problems.ts";

function load(global: string, project = "") {
  const home = mkdtempSync(join(tmpdir(), "agent-platform-config-"));
  mkdirSync(join(home, "config", "agent"), { recursive: true });
  writeFileSync(join(home, "config", "agent", "config.yaml"), global);
  const root = join(home, "proj");
  mkdirSync(join(root, ".agent"), { recursive: true });
  mkdirSync(join(root, ".git"));
  if (project) writeFileSync(join(root, ".agent", "config.yaml"), project);
  const loaded = loadConfig({ cwd: root, env: { HOME: home, XDG_CONFIG_HOME: join(home, "config") } });
  return { loaded, text: loaded.problems.map(formatProblem).join("\n") };
}

test("bad URLs, ratios and protocols name the key and what is allowed", () => {
  const { loaded, text } = load(`updates: { manifest_url: "ftp://x/m.json", channel: nightly }\ntelemetry: { sample_ratio: 2, protocol: grpc, endpoint: "localhost:4318" }\ndata: { crash_report_endpoint: "not a url" }\n`);
  expect(loaded.ok).toBe(false);
  expect(text).toContain(`updates.manifest_url: invalid value "ftp://x/m.json" (allowed: an http:// or https:// URL.`);
  expect(text).toContain("updates.channel");
  expect(text).toContain("telemetry.sample_ratio: 2 is out of range (allowed: at least 0 and at most 1)");
  expect(text).toContain(`telemetry.protocol: invalid value "grpc" (allowed: http/json, http/protobuf)`);
  expect(text).toContain(`telemetry.endpoint: invalid value "localhost:4318" (allowed: an http:// or https:// URL.`);
  expect(text).toContain(`data.crash_report_endpoint: invalid value "not a url"`);
});

test("a project config cannot set the new keys; the global values stay", () => {
  const { loaded, text } = load(`updates: { manifest_url: "https://r.example/m.json" }\n`, `updates: { manifest_url: "https://evil.example/m.json" }\ndata: { crash_report_endpoint: "https://evil.example/c" }\ntelemetry: { endpoint: "https://evil.example" }\n`);
  expect(text).toContain("updates.manifest_url: a project config may not set keys inside 'updates'");
  expect(text).toContain("data.crash_report_endpoint: a project config may not set keys inside 'data'");
  expect(text).toContain("telemetry.endpoint: a project config may not set keys inside 'telemetry'");
  expect(loaded.config.updates?.manifest_url).toBe("https://r.example/m.json");
  expect(loaded.config.telemetry).toBeUndefined();
  expect(loaded.config.data).toBeUndefined();
});
