// Secrets in free text are found by gitleaks' maintained rules (src/util/secret-rules.json), applied as
// gitleaks applies them: keywords, the secret group, entropy thresholds and allowlists. The published
// catalog of a daemon once carried an AWS access key unscrubbed.
import { afterAll, expect, test } from "bun:test";
import { redactText } from "../../src/util/redact.ts";
import { findSecrets, shannonEntropy } from "../../src/util/secret-rules.ts";
import rules from "../../src/util/secret-rules.json";
import { startHarness, type Harness } from "../daemon/harness.ts";
import type { CatalogContent } from "../../src/daemon/catalog.ts";

let h: Harness | undefined;
afterAll(() => h?.stop());

test("the rule set is gitleaks' own, credited, with every regex compiled", () => {
  expect(rules.source).toContain("gitleaks");
  expect(rules.source).toContain("MIT");
  expect(rules.rules.length).toBeGreaterThan(200);
  for (const r of rules.rules) expect(() => new RegExp(r.source, `${r.flags}gd`)).not.toThrow();
});

test("secrets of many vendors are found; only the secret part of a match is redacted", () => {
  const cases: [string, string][] = [
    ["aws-access-token", "aws key AKIA2OGYBAH6STMMNXNN in the config"],
    ["github-pat", "token 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"],
    ["slack-bot-token", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"],
    ["stripe-access-token", "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc"],
    ["anthropic-api-key", `ANTHROPIC_API_KEY=sk-ant-api03-${"Qx7vN2kLp9RmT4wYb8ZcH3jF6sDgA1eUo5iKqWzXn0MyPtVrBlCdSfGhJ".repeat(2).slice(0, 93)}AA`],
    ["generic-api-key", 'api_key="Zx8sK2mQ9vL4pR7tW1yB"'],
  ];
  for (const [rule, text] of cases) {
    const found = findSecrets(text);
    expect([rule, found.map((f) => f.rule)]).toEqual([rule, expect.arrayContaining([rule])]);
    expect(redactText(text)).toContain("[redacted]");
  }
  expect(redactText('api_key="Zx8sK2mQ9vL4pR7tW1yB"')).toBe('api_key="[redacted]"');
});

test("gitleaks' allowlists, stopwords and entropy thresholds keep ordinary text as it is", () => {
  for (const text of ["aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "the api_version: 2023-06-01 and access granted", "run npm test in /tmp/project", "password = aaaaaaaaaaaa", "key = ${API_KEY}", "token: true"]) {
    expect(redactText(text)).toBe(text);
  }
  expect(shannonEntropy("aaaa")).toBe(0);
  expect(shannonEntropy("abcd")).toBe(2);
});

test("a key in a tool server's arguments does not reach the published catalog", async () => {
  const content = (): CatalogContent => ({
    facets: [],
    models: [],
    providers: [],
    subagents: [],
    skills: [],
    commands: [],
    extensions: [],
    mcp_servers: [],
    tools: [{ name: "deploy", description: "deploys with AKIA2OGYBAH6STMMNXNN and xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx" }],
  }) as unknown as CatalogContent;
  h = await startHarness({ catalog: content });
  const text = await (await h.get("/daemon-state")).text();
  expect(text).not.toContain("AKIA2OGYBAH6STMMNXNN");
  expect(text).not.toContain("xoxb-123456789012");
  expect(text).toContain("[redacted]");
});
