// Compiles the single `dist/agent` executable, then smoke-tests it.
import { rmSync } from "node:fs";
import { resolve } from "node:path";

const outfile = resolve(import.meta.dir, "dist/agent");
rmSync(resolve(import.meta.dir, "dist"), { recursive: true, force: true });

const result = await Bun.build({
  // The PAM worker is a Worker entrypoint: inside the binary it must be bundled as its own module.
  entrypoints: [resolve(import.meta.dir, "src/cli/main.ts"), resolve(import.meta.dir, "src/gateway/auth/pam-worker.ts")],
  compile: { outfile, autoloadDotenv: false, autoloadBunfig: false },
  target: "bun",
  format: "esm",
  splitting: true,
  bytecode: true,
  minify: true,
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  plugins: [
    {
      // Ink imports the optional react-devtools-core; map it to a stub so it resolves inside the binary.
      name: "react-devtools-stub",
      setup(build) {
        build.onResolve({ filter: /^react-devtools-core$/ }, () => ({
          path: resolve(import.meta.dir, "src/util/react-devtools-stub.ts"),
        }));
      },
    },
  ],
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}

const smoke = Bun.spawnSync([outfile, "--version"], { env: { PATH: process.env.PATH ?? "" } });
const printed = smoke.stdout.toString().trim();
if (smoke.exitCode !== 0 || !/^agent \d+\.\d+\.\d+/.test(printed)) {
  console.error(`build smoke test failed: 'dist/agent --version' exited ${smoke.exitCode}: ${printed} ${smoke.stderr}`);
  process.exit(1);
}
console.log(`built ${outfile} (${printed})`);
