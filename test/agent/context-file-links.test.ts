// Context files and symlinks: a project's AGENTS.md, skills, facets, subagents and variables are read
// only where they really are inside the project (the repository root's AGENTS.md: inside the
// repository), with one warning naming each skipped file; the user's global files may link anywhere;
// follow_symlinks_for_configs off skips every symlinked file. The e2e in
// test/e2e/context-file-escapes.test.ts shows the same through the binary's requests.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readContextFile } from "../../src/agent/context/context-file.ts";
import { resolveFacet, FacetError } from "../../src/agent/context/facets.ts";
import { loadSkills } from "../../src/agent/context/skills.ts";
import { InstructionTracker } from "../../src/agent/context/instructions.ts";
import { loadVariables } from "../../src/agent/context/variables.ts";
import { loadSubagentDefinitions } from "../../src/agent/subagents/definitions.ts";
import type { AppConfig } from "../../src/config/schema.ts";

const SECRET = "SECRET-outside-the-project-3a9f";
const OUTSIDE = "leads outside the project through a symlink";

/** A user's home with a secret note and their global config dir, and a repository (root) holding a project. */
function world(opts: { nested?: boolean } = {}) {
  const base = mkdtempSync(join(tmpdir(), "agent-context-links-"));
  const home = join(base, "home");
  const global = join(home, ".config", "agent");
  const repo = join(base, "repo");
  const root = opts.nested ? join(repo, "app") : repo;
  mkdirSync(global, { recursive: true });
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(join(root, ".agent"), { recursive: true });
  const secret = join(home, "secret.md");
  writeFileSync(secret, `---\ndescription: ${SECRET}\n---\n${SECRET}\n`);
  const put = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  const link = (path: string, target: string) => {
    mkdirSync(dirname(path), { recursive: true });
    symlinkSync(target, path);
  };
  return { base, home, global, repo, root, agentDir: join(root, ".agent"), secret, put, link };
}

const instructions = (w: ReturnType<typeof world>, follow = true) => {
  const warnings: string[] = [];
  const { files } = new InstructionTracker({ globalConfigDir: w.global, projectRoot: w.root, repoRoot: w.repo, agentDir: w.agentDir, followSymlinks: follow }, warnings).initial();
  return { files, warnings };
};

describe("readContextFile", () => {
  test("within a root: a link inside is read, a link out is skipped with one warning, a plain file is read", () => {
    const w = world();
    w.put(join(w.root, "docs", "rules.md"), "Rules.");
    w.link(join(w.root, "in.md"), "docs/rules.md");
    w.link(join(w.root, "out.md"), w.secret);
    const warnings: string[] = [];
    expect(readContextFile(join(w.root, "in.md"), true, w.root, warnings)).toBe("Rules.");
    expect(readContextFile(join(w.root, "docs", "rules.md"), true, w.root, warnings)).toBe("Rules.");
    expect(readContextFile(join(w.root, "out.md"), true, w.root, warnings)).toBeNull();
    expect(readContextFile(join(w.root, "missing.md"), true, w.root, warnings)).toBeNull();
    expect(warnings).toEqual([`skipped ${join(w.root, "out.md")}: it ${OUTSIDE} (to ${w.secret}); a project's context files are read only from inside it`]);
  });

  test("without a root (the user's own files) a link anywhere is read; with following off any link is skipped", () => {
    const w = world();
    w.link(join(w.global, "AGENTS.md"), w.secret);
    const warnings: string[] = [];
    expect(readContextFile(join(w.global, "AGENTS.md"), true, null, warnings)).toContain(SECRET);
    expect(readContextFile(join(w.global, "AGENTS.md"), false, null, warnings)).toBeNull();
    expect(warnings).toEqual([`skipped ${join(w.global, "AGENTS.md")}: it is a symlink and daemon.follow_symlinks_for_configs is off`]);
  });

  test("a plain file under a linked directory counts by where it really is", () => {
    const w = world();
    mkdirSync(join(w.home, "notes"));
    writeFileSync(join(w.home, "notes", "AGENTS.md"), SECRET);
    w.link(join(w.root, "notes"), join(w.home, "notes"));
    const warnings: string[] = [];
    expect(readContextFile(join(w.root, "notes", "AGENTS.md"), true, w.root, warnings)).toBeNull();
    expect(warnings[0]).toContain(OUTSIDE);
  });

  test("a project opened through a symlinked path is not outside itself", () => {
    const w = world();
    w.put(join(w.root, "AGENTS.md"), "Project rules.");
    const alias = join(w.base, "alias");
    symlinkSync(w.root, alias);
    const warnings: string[] = [];
    expect(readContextFile(join(alias, "AGENTS.md"), true, alias, warnings)).toBe("Project rules.");
    expect(warnings).toEqual([]);
  });
});

describe("AGENTS.md", () => {
  test("the repository's and .agent/'s linked to the home are skipped, the global one linked there is read", () => {
    const w = world();
    w.link(join(w.repo, "AGENTS.md"), w.secret);
    w.link(join(w.agentDir, "AGENTS.md"), w.secret);
    w.put(join(w.home, "dotfiles", "agents.md"), "Global rules.");
    w.link(join(w.global, "AGENTS.md"), join(w.home, "dotfiles", "agents.md"));
    const { files, warnings } = instructions(w);
    expect(files).toEqual([{ path: join(w.global, "AGENTS.md"), text: "Global rules." }]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toStartWith(`skipped ${join(w.repo, "AGENTS.md")}: it ${OUTSIDE}`);
    expect(warnings[1]).toStartWith(`skipped ${join(w.agentDir, "AGENTS.md")}: it ${OUTSIDE}`);
  });

  test("in a project inside a repository: the root AGENTS.md may link within the repository, .agent/ files only within the project", () => {
    const w = world({ nested: true });
    w.put(join(w.repo, "shared", "rules.md"), "Shared rules.");
    w.link(join(w.repo, "AGENTS.md"), "shared/rules.md");
    w.link(join(w.agentDir, "AGENTS.md"), join(w.repo, "shared", "rules.md"));
    const { files, warnings } = instructions(w);
    expect(files).toEqual([{ path: join(w.repo, "AGENTS.md"), text: "Shared rules." }]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toStartWith(`skipped ${join(w.agentDir, "AGENTS.md")}: it ${OUTSIDE}`);
  });

  test("a whole .agent/ directory linked out of the project: nothing in it is read", () => {
    const w = world();
    w.put(join(w.home, "elsewhere", "AGENTS.md"), SECRET);
    const agentDir = join(w.root, ".agent");
    rmSync(agentDir, { recursive: true });
    symlinkSync(join(w.home, "elsewhere"), agentDir);
    const { files, warnings } = instructions(w);
    expect(files).toEqual([]);
    expect(warnings[0]).toContain(OUTSIDE);
  });
});

describe("skills, variables, facets, subagents", () => {
  test("a project skill file or skill directory linked out is skipped; a global skill linked to the home is loaded", () => {
    const w = world();
    w.link(join(w.agentDir, "skills", "notes.md"), w.secret);
    w.put(join(w.home, "skill-dir", "SKILL.md"), `---\ndescription: ${SECRET}\n---\n`);
    w.link(join(w.agentDir, "skills", "keys"), join(w.home, "skill-dir"));
    w.put(join(w.agentDir, "skills", "tidy.md"), "---\ndescription: Tidy up\n---\nTidy.");
    w.put(join(w.home, "mine.md"), "---\ndescription: My own skill\n---\nMine.");
    w.link(join(w.global, "skills", "mine.md"), join(w.home, "mine.md"));
    const warnings: string[] = [];
    const skills = loadSkills([{ dir: join(w.global, "skills"), origin: "global" }, { dir: join(w.agentDir, "skills"), origin: "project" }], true, warnings);
    expect(skills.map((s) => [s.name, s.description])).toEqual([["mine", "My own skill"], ["tidy", "Tidy up"]]);
    expect(warnings).toHaveLength(2);
    expect(warnings.join("\n")).toContain(`skipped ${join(w.agentDir, "skills", "keys", "SKILL.md")}: it ${OUTSIDE}`);
    expect(warnings.join("\n")).toContain(`skipped ${join(w.agentDir, "skills", "notes.md")}: it ${OUTSIDE}`);
  });

  test("variables.yaml linked out is skipped", () => {
    const w = world();
    w.put(join(w.home, "tokens.yaml"), `token: ${SECRET}\n`);
    w.link(join(w.agentDir, "variables.yaml"), join(w.home, "tokens.yaml"));
    const warnings: string[] = [];
    expect(loadVariables(w.agentDir, true, warnings)).toEqual({});
    expect(warnings).toEqual([expect.stringContaining(`skipped ${join(w.agentDir, "variables.yaml")}: it ${OUTSIDE}`)]);
  });

  test("a facet file linked out: a built-in name keeps the built-in prompt (one warning), another name cannot start and says why", () => {
    const w = world();
    w.link(join(w.agentDir, "facets", "plan.md"), w.secret);
    w.link(join(w.agentDir, "facets", "review.md"), w.secret);
    const warnings: string[] = [];
    const plan = resolveFacet("plan", {} as AppConfig, w.root, w.agentDir, true, warnings);
    expect(plan.source).toBe("agent://facets/plan");
    expect(plan.prompt).not.toContain(SECRET);
    expect(warnings).toEqual([expect.stringContaining(`skipped ${join(w.agentDir, "facets", "plan.md")}: it ${OUTSIDE}`)]);
    expect(() => resolveFacet("review", {} as AppConfig, w.root, w.agentDir, true, [])).toThrow(FacetError);
    expect(() => resolveFacet("review", {} as AppConfig, w.root, w.agentDir, true, [])).toThrow(`facet 'review': skipped ${join(w.agentDir, "facets", "review.md")}: it ${OUTSIDE}`);
  });

  test("a facet source linked out is refused when the session resolves it (not only by the config check)", () => {
    const w = world();
    w.link(join(w.root, "prompts", "review.md"), w.secret);
    w.put(join(w.root, "prompts", "ok.md"), "---\ndescription: Reviews\n---\nReview carefully.");
    const config = { facets: { review: { source: "prompts/review.md" }, ok: { source: "prompts/ok.md" } } } as unknown as AppConfig;
    expect(() => resolveFacet("review", config, w.root, w.agentDir, true, [])).toThrow("facets.review.source: 'prompts/review.md' is a symlink that leads outside the project");
    expect(resolveFacet("ok", config, w.root, w.agentDir, true, []).prompt).toBe("Review carefully.");
  });

  test("a subagent file linked out is as if absent (one warning); one linked inside the project is used", () => {
    const w = world();
    w.link(join(w.agentDir, "subagents", "scout.md"), w.secret);
    w.put(join(w.root, "shared", "helper.md"), "---\ndescription: Helps\n---\nHelp.");
    w.link(join(w.agentDir, "subagents", "helper.md"), "../../shared/helper.md");
    const warnings: string[] = [];
    const defs = loadSubagentDefinitions({ config: {} as AppConfig, projectRoot: w.root, agentDir: w.agentDir, followSymlinks: true, models: new Map() }, warnings);
    expect([...defs.usable.keys()].sort()).toEqual(["explore", "general", "helper"]);
    expect(defs.broken.size).toBe(0);
    expect(defs.usable.get("helper")?.prompt).toBe("Help.");
    expect(warnings).toEqual([expect.stringContaining(`skipped ${join(w.agentDir, "subagents", "scout.md")}: it ${OUTSIDE}`)]);
  });
});
