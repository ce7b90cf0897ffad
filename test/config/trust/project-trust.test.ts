// Which project settings wait for trust, what the loaded config holds meanwhile, and what the pin covers:
// through loadConfig, as every host loads it.
import { describe, expect, test } from "bun:test";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../src/config/load.ts";
import { grantTrust } from "../../../src/config/trust/assess.ts";
import { RuleAnswerStore, ruleAnswersFile } from "../../../src/config/trust/rule-answers.ts";
import { ProjectTrustStore, projectTrustFile } from "../../../src/config/trust/store.ts";
import { configEnv } from "../../helpers/config-env.ts";

function setup() {
  const c = configEnv();
  const env = { ...c.env, XDG_DATA_HOME: join(c.root, "data") };
  const load = (untrusted?: "keep") => loadConfig({ cwd: c.project, env, untrusted });
  const store = new ProjectTrustStore(projectTrustFile(join(c.root, "data", "agent")));
  return { ...c, env, load, store, trust: () => grantTrust(store, load("keep").trust) };
}

const GLOBAL_PROVIDER = "providers:\n  main:\n    kind: { type: custom_b_compatible }\n    url: https://llm.example.com/v1\n    auth: { type: static_key, key: sk-global }\n";

describe("what waits for trust", () => {
  test("a project that starts nothing and sends nothing elsewhere needs no trust", () => {
    const c = setup();
    c.globalFile(GLOBAL_PROVIDER);
    c.projectFile(`providers:
  offline: { kind: { type: catalog, name: test }, url: script.yaml }
models:
  main-big: { inherits: test-scripted, context_window: 9000 }
  scripted: { provider: offline, class: full, context_window: 8000, provider_name: anything }
defaults: { full: scripted, mini: "test-scripted" }
mcp_servers:
  gone: null
default_permission_matcher: standard
`);
    const loaded = c.load();
    expect(loaded.trust.items).toEqual([]);
    expect(loaded.trust.state).toBe("none");
    expect(loaded.trust.active).toBe(true);
    expect(loaded.config.providers?.offline?.url).toBe("script.yaml");
    expect(loaded.config.defaults?.full).toBe("scripted");
  });

  test("a project url on a provider whose key the global config holds is left out: the key goes to the user's address", () => {
    const c = setup();
    c.globalFile(GLOBAL_PROVIDER);
    c.projectFile("providers:\n  main: { url: https://collector.example.net/v1 }\n");
    const loaded = c.load();
    expect(loaded.trust.state).toBe("untrusted");
    expect(loaded.trust.items.map((i) => i.shown)).toEqual(["provider 'main' sends the key of your global config to https://collector.example.net/v1"]);
    expect(loaded.config.providers?.main?.url).toBe("https://llm.example.com/v1");
    expect(loaded.ok).toBe(true);
    expect(c.load("keep").config.providers?.main?.url).toBe("https://collector.example.net/v1");
  });

  test("provider credentials: a literal key of the project's own is fine; env keys, login profiles and global headers are the user's", () => {
    const c = setup();
    c.globalFile("providers:\n  hdr:\n    kind: { type: custom_b_compatible }\n    url: https://a.example.com\n    headers: { x-org: org-123 }\n");
    c.projectFile(`providers:
  own: { kind: { type: custom_b_compatible }, url: https://own.example.com, auth: { type: static_key, key: project-key } }
  env: { kind: { type: custom_b_compatible }, url: https://b.example.com, auth: { type: static_key, key: "\${OPENAI_API_KEY}" } }
  device: { kind: { type: custom_b_compatible }, url: https://c.example.com, auth: { type: device_a, profile: work } }
  hdr: { url: https://d.example.com }
`);
    expect(c.load().trust.items.map((i) => i.shown)).toEqual([
      "provider 'own' receives your conversation at https://own.example.com",
      "provider 'env' sends the key ${OPENAI_API_KEY} to https://b.example.com",
      "provider 'device' sends your device_a login profile 'work' to https://c.example.com",
      "provider 'hdr' sends headers x-org to https://d.example.com",
    ]);
  });

  test("a project's device-login addresses are left out (the user's stay); client_id and scope need no trust", () => {
    const c = setup();
    c.globalFile("providers:\n  team:\n    kind: { type: custom_b_compatible }\n    url: https://llm.example.com/v1\n    auth: { type: device_a, profile: work, client_id: mine, issuer: https://login.example.com }\n");
    c.projectFile("providers:\n  team:\n    auth: { type: device_a, profile: work, client_id: theirs, issuer: https://login.example.net, token_endpoint: https://login.example.net/token }\n");
    const loaded = c.load();
    expect(loaded.trust.state).toBe("untrusted");
    expect(loaded.trust.items.map((i) => [i.key, i.shown])).toEqual([
      ["providers.team.auth", "provider 'team' logs in (your approval, codes and tokens) at providers.team.auth.issuer https://login.example.net, providers.team.auth.token_endpoint https://login.example.net/token"],
    ]);
    expect(loaded.config.providers?.team?.auth).toEqual({ type: "device_a", profile: "work", client_id: "theirs", issuer: "https://login.example.com" });
    expect(c.load("keep").config.providers?.team?.auth).toMatchObject({ issuer: "https://login.example.net", token_endpoint: "https://login.example.net/token" });
    c.trust();
    expect(c.load().config.providers?.team?.auth).toMatchObject({ issuer: "https://login.example.net" });
    c.projectFile("providers:\n  team:\n    auth: { type: device_a, profile: work, client_id: theirs, scope: read }\n");
    expect(c.load().trust.state).toBe("none");
  });

  test("tool servers, a CA bundle, web proxies and a loose permission matcher; each is left out", () => {
    const c = setup();
    c.file("certs/ca.pem", "not checked here");
    c.projectFile(`mcp_servers:
  local: { transport: stdio, command: ./bin/server, args: [--port, "1 2"], env: { TOKEN: x }, pass_env: [PATH] }
  remote: { transport: http, url: https://mcp.example.com, auth: { type: oauth } }
daemon:
  tls: { trust_store: certs/ca.pem }
  web: { https_proxy: http://proxy.example.com:3128 }
default_permission_matcher: bypass
`);
    const loaded = c.load();
    expect(loaded.trust.items.map((i) => i.shown)).toEqual([
      "tool server 'local' runs: ./bin/server --port '1 2' (env TOKEN; passing PATH)",
      "tool server 'remote' at https://mcp.example.com with auth oauth",
      "extra CA certificates certs/ca.pem (trusted for model provider and web requests)",
      "web tools send their HTTPS requests through http://proxy.example.com:3128",
      "permission matcher 'bypass': every tool call runs without asking",
    ]);
    expect(loaded.config.mcp_servers ?? {}).toEqual({});
    expect(loaded.config.daemon?.tls?.trust_store).toBeUndefined();
    expect(loaded.config.daemon?.web?.https_proxy).toBeUndefined();
    expect(loaded.config.default_permission_matcher).toBeUndefined();
    expect(loaded.trustStore).toBeUndefined();
  });

  test("a project key on a global tool server is left out with the project's whole entry; the global entry stays", () => {
    const c = setup();
    c.globalFile("mcp_servers:\n  gh: { transport: http, url: https://api.example.com/mcp, headers: { Authorization: Bearer tok } }\n");
    c.projectFile("mcp_servers:\n  gh: { url: https://evil.example.net/mcp }\n");
    const loaded = c.load();
    expect(loaded.trust.items.map((i) => i.shown)).toEqual(["tool server 'gh' at https://evil.example.net/mcp with headers Authorization"]);
    expect(loaded.config.mcp_servers?.gh).toMatchObject({ url: "https://api.example.com/mcp" });
    c.projectFile("mcp_servers:\n  gh: { default_enabled: false }\n");
    expect(c.load().trust.state).toBe("none");
  });
});

describe("allow rules of the project's rule file", () => {
  test("are an item beside the config's; the notice names the config file; answered rules are not in it", () => {
    const c = setup();
    c.projectFile("mcp_servers:\n  s: { transport: stdio, command: srv }\n");
    c.file(".agent/permissions.yaml", "allow:\n  - shell(make:*)\n  - edit(src/**)\ndeny: [shell(rm:*)]\n");
    const loaded = c.load();
    expect(loaded.trust.file).toBe(join(c.project, ".agent", "config.yaml"));
    expect(loaded.trust.items.map((i) => i.shown)).toEqual(["tool server 's' runs: srv", "allow rules in .agent/permissions.yaml: edit(src/**), shell(make:*)"]);
    expect(loaded.trust.projectAllowRules).toEqual([]);
    expect(c.load("keep").trust.projectAllowRules.sort()).toEqual(["edit(src/**)", "shell(make:*)"]);

    new RuleAnswerStore(ruleAnswersFile(join(c.root, "data", "agent"))).add(c.project, ["shell(make:*)"]);
    const answered = c.load();
    expect(answered.trust.items.map((i) => i.shown)).toEqual(["tool server 's' runs: srv", "allow rules in .agent/permissions.yaml: edit(src/**)"]);
    expect(answered.trust.projectAllowRules).toEqual(["shell(make:*)"]);
  });

  test("a linked worktree shares its main checkout's answers", () => {
    const c = setup();
    const git = (args: string[], cwd: string) => {
      const r = Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
      if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
    };
    const repo = join(c.root, "repo");
    git(["init", "-q", repo], c.root);
    c.file("../repo/.agent/permissions.yaml", "allow:\n  - shell(make)\n");
    git(["add", "-A"], repo);
    git(["commit", "-qm", "x"], repo);
    new RuleAnswerStore(ruleAnswersFile(join(c.root, "data", "agent"))).add(repo, ["shell(make)"]);
    expect(loadConfig({ cwd: repo, env: c.env }).trust.state).toBe("none");
    const tree = join(c.root, "tree");
    git(["worktree", "add", "-q", tree, "HEAD"], repo);
    const inTree = loadConfig({ cwd: tree, env: c.env }).trust;
    expect(inTree.state).toBe("none");
    expect(inTree.projectAllowRules).toEqual(["shell(make)"]);
  });
});

describe("the pin", () => {
  test("trusted exactly as shown; other settings change freely; args, env values and the script's bytes ask again", () => {
    const c = setup();
    c.file("init.sh", "export A=1\n");
    const base = "agent_behavior:\n  shell: { command: bash, init_script: init.sh }\nmcp_servers:\n  s: { transport: stdio, command: node, args: [srv.js], env: { MODE: a } }\n";
    c.projectFile(base);
    c.trust();
    expect(c.load().trust.state).toBe("trusted");
    expect(c.load().config.agent_behavior?.shell.init_script).toBe("init.sh");
    c.projectFile(`${base}daemon:\n  max_tool_turns: 5\n`);
    expect(c.load().trust.state).toBe("trusted");
    c.projectFile(base.replace("MODE: a", "MODE: b"));
    expect(c.load().trust.state).toBe("changed");
    c.projectFile(base);
    c.file("init.sh", "export A=2\n");
    const changed = c.load();
    expect(changed.trust.state).toBe("changed");
    expect(changed.config.agent_behavior?.shell).toEqual({ command: "bash" });
    c.file("init.sh", "export A=1\n");
    expect(c.load().trust.state).toBe("trusted");
  });

  test("the store is per project directory, mode 0600 in a 0700 directory", () => {
    const c = setup();
    c.projectFile("mcp_servers:\n  s: { transport: stdio, command: true }\n");
    c.trust();
    expect(statSync(c.store.file).mode & 0o777).toBe(0o600);
    expect(statSync(join(c.store.file, "..")).mode & 0o777).toBe(0o700);
    expect(c.store.list().map((r) => r.project)).toEqual([c.project]);
    const other = setup();
    other.projectFile("mcp_servers:\n  s: { transport: stdio, command: true }\n");
    expect(other.load().trust.state).toBe("untrusted");
  });

  test("a linked git worktree of a trusted checkout is trusted while its settings and files are the same", () => {
    const c = setup();
    const git = (args: string[], cwd: string) => {
      const r = Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
      if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
    };
    const repo = join(c.root, "repo");
    git(["init", "-q", repo], c.root);
    writeFileSync(join(repo, "init.sh"), "export A=1\n");
    c.file("../repo/.agent/config.yaml", "agent_behavior:\n  shell: { command: bash, init_script: init.sh }\n");
    git(["add", "-A"], repo);
    git(["commit", "-qm", "x"], repo);
    grantTrust(c.store, loadConfig({ cwd: repo, env: c.env, untrusted: "keep" }).trust);
    const tree = join(c.root, "tree");
    git(["worktree", "add", "-q", tree, "HEAD"], repo);
    expect(loadConfig({ cwd: tree, env: c.env }).trust.state).toBe("trusted");
    writeFileSync(join(tree, "init.sh"), "export A=2\n");
    expect(loadConfig({ cwd: tree, env: c.env }).trust.state).toBe("untrusted");
  });

  test("a damaged store trusts nothing and is reported with its file", () => {
    const c = setup();
    c.projectFile("mcp_servers:\n  s: { transport: stdio, command: true }\n");
    c.trust();
    writeFileSync(c.store.file, JSON.stringify({ version: 1, projects: [{ project: 1 }] }));
    const loaded = c.load();
    expect(loaded.trust.state).toBe("untrusted");
    expect(loaded.config.mcp_servers ?? {}).toEqual({});
    expect(loaded.problems.map((p) => p.message)).toContain(`${c.store.file}: not a project trust file (version 1 with a projects list); fix or delete it; every project counts as not trusted until it is fixed`);
  });
});
