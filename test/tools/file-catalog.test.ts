import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileCatalog } from "../../src/tools/file-catalog.ts";
import { FakeClock } from "../fakes/fake-clock.ts";
import { makeProject, writeFiles } from "./helpers.ts";

describe("file catalog", () => {
  test(".gitignore: nested files, negations, directory patterns, info/exclude", () => {
    const root = makeProject(
      {
        ".gitignore": "*.log\nbuild/\n!keep.log\n/top-only.txt\n",
        "a.log": "", "keep.log": "", "top-only.txt": "", "build/out.js": "",
        "src/top-only.txt": "", "src/build": "a file named build is not a directory",
        "src/.gitignore": "secret.*\n!important.log\n", "src/secret.ts": "", "src/important.log": "", "src/x.ts": "",
        "src/deep/.gitignore": "!secret.ts\n", "src/deep/secret.ts": "",
        "excluded.txt": "",
      },
      { git: true },
    );
    mkdirSync(join(root, ".git", "info"));
    writeFileSync(join(root, ".git", "info", "exclude"), "excluded.txt\n");
    writeFileSync(join(root, ".git", "HEAD"), "ref: x\n");
    const snap = new FileCatalog({ root, clock: new FakeClock() }).snapshot();
    expect(snap.files).toEqual([
      ".gitignore", "keep.log", "src/.gitignore", "src/build", "src/deep/.gitignore", "src/deep/secret.ts",
      "src/important.log", "src/top-only.txt", "src/x.ts",
    ]);
    expect(snap.sourceControlled).toBe(true);
  });

  test("a subdirectory project honours the repository's .gitignore files above it", () => {
    const repo = makeProject({ ".gitignore": "*.tmp\n", "pkg/.gitignore": "gen/\n", "pkg/app/a.ts": "", "pkg/app/b.tmp": "", "pkg/app/gen/c.ts": "" }, { git: true });
    const snap = new FileCatalog({ root: join(repo, "pkg/app"), clock: new FakeClock() }).snapshot();
    expect(snap.files).toEqual(["a.ts"]);
  });

  test("exclude_generated prunes node_modules and bazel-* unless turned off", () => {
    const files = { "a.ts": "", "node_modules/m/i.js": "", "bazel-out/x": "", "bazel-bin/y": "", "bazel-testlogs/z": "", "bazel-proj/w": "", "bazelish/v": "" };
    const root = makeProject(files, { git: true });
    expect(new FileCatalog({ root, clock: new FakeClock() }).snapshot().files).toEqual(["a.ts", "bazelish/v"]);
    const all = new FileCatalog({ root, clock: new FakeClock(), config: { exclude_generated: false } }).snapshot().files;
    expect(all).toHaveLength(7);
  });

  test("budgets apply outside a repository only", () => {
    const files = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${String(i).padStart(2, "0")}.txt`, ""]));
    const plain = makeProject(files);
    const capped = new FileCatalog({ root: plain, clock: new FakeClock(), config: { max_files: 10 } }).snapshot();
    expect(capped.files).toHaveLength(10);
    expect(capped.truncated).toEqual({ reason: "max_files", limit: 10 });
    expect(capped.sourceControlled).toBe(false);
    const repo = makeProject(files);
    writeFileSync(join(repo, ".git"), "gitdir: /elsewhere\n");
    const uncapped = new FileCatalog({ root: repo, clock: new FakeClock(), config: { max_files: 10 } }).snapshot();
    expect(uncapped.files).toHaveLength(30);
    expect(uncapped.truncated).toBeUndefined();
  });

  test("the duration budget reads the injected clock", () => {
    const files = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`d${i}/f.txt`, ""]));
    const root = makeProject(files);
    const clock = new FakeClock();
    const ticking = { now: () => (clock.advance(40), clock.now()) };
    const snap = new FileCatalog({ root, clock: ticking, config: { max_duration_ms: 100 } }).snapshot();
    expect(snap.truncated).toEqual({ reason: "max_duration_ms", limit: 100 });
    expect(snap.files.length).toBeLessThan(5);
  });

  test("cached for cache_ttl_secs on the clock; invalidate drops the cache", () => {
    const root = makeProject({ "a.txt": "" }, { git: true });
    const clock = new FakeClock();
    const catalog = new FileCatalog({ root, clock, config: { cache_ttl_secs: 30 } });
    expect(catalog.snapshot().files).toEqual(["a.txt"]);
    writeFiles(root, { "b.txt": "" });
    clock.advance(29_999);
    expect(catalog.snapshot().files).toEqual(["a.txt"]);
    clock.advance(1);
    expect(catalog.snapshot().files).toEqual(["a.txt", "b.txt"]);
    writeFiles(root, { "c.txt": "" });
    catalog.invalidate();
    expect(catalog.snapshot().files).toEqual(["a.txt", "b.txt", "c.txt"]);
  });
});
