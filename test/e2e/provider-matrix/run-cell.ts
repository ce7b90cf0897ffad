// One matrix cell: a project with the task's files, the user's global config giving the catalog provider
// the fake's address (the vendor's own path on 127.0.0.1) and a dummy key, the user's permission rules
// for the task, then `agent exec` of the compiled binary, as a user runs it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY } from "../../helpers/binary.ts";
import type { CapturedRequest } from "../../fakes/provider-fake.ts";
import { saveProfile } from "../../../src/providers/device-auth/profiles.ts";
import { type MatrixCell, SERVED_CONTEXT_WINDOW } from "./cells.ts";
import { normalizeRequests } from "./fixtures.ts";
import { IMAGE_PROMPT, NOTES, offeredTools, PERMISSIONS, PNG_BASE64, script, TOOL_PROMPT } from "./task.ts";
import { startVendorFake, vendorPath } from "./vendor-fake.ts";

export const MATRIX_KEY = "sk-matrix-0123456789abcdef";
const DEVICE_PROFILE = "matrix";

export interface CellResult {
  cell: MatrixCell;
  code: number;
  stdout: string;
  stderr: string;
  /** The project's notes.txt after the run. */
  notes: string;
  requests: CapturedRequest[];
  violations: string[];
  /** The requests, normalized for the fixture. */
  normalized: unknown[];
}

function providerYaml(cell: MatrixCell, url: string): string {
  const name = cell.provider.name;
  const auth =
    cell.provider.auth === "none"
      ? "{ type: no_auth }"
      : cell.provider.auth === "device_a"
        ? `{ type: device_a, profile: ${DEVICE_PROFILE} }`
        : `{ type: static_key, key: "${MATRIX_KEY}" }`;
  const lines = [`providers:`, `  ${name}:`, `    kind: { type: catalog, name: ${name} }`, `    url: "${url}"`, `    auth: ${auth}`];
  // A local server's models come from its /models; the user's config names the one it serves.
  if (cell.role === "served") lines.push(`models:`, `  "${cell.key}": { provider: ${name}, provider_name: "${cell.model}", class: full, context_window: ${SERVED_CONTEXT_WINDOW} }`);
  return `${lines.join("\n")}\n`;
}

/** A device login's tokens as `agent auth provider login` saves them (the cell is about the requests that follow). */
function saveDeviceLogin(dataRoot: string, cell: MatrixCell): void {
  const now = new Date();
  saveProfile(dataRoot, {
    version: 1,
    kind: "device_a",
    profile: DEVICE_PROFILE,
    provider: cell.provider.name,
    issuer: "http://127.0.0.1:9",
    token_endpoint: "http://127.0.0.1:9/token",
    client_id: "agent-matrix",
    tokens: { access_token: "at_matrix_0123456789abcdef", refresh_token: "rt_matrix_0123456789abcdef", token_type: "Bearer", expires_at: now.getTime() + 3_600_000, scope: null },
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  });
}

/** A temp project with the task's files, and the user's config dir pointing the cell's provider at `origin`. */
export function cellProject(cell: MatrixCell, origin: string): { base: string; root: string; env: Record<string, string> } {
  const base = mkdtempSync(join(tmpdir(), "agent-matrix-"));
  const root = join(base, "proj");
  mkdirSync(join(root, ".git"), { recursive: true });
  writeFileSync(join(root, "notes.txt"), NOTES);
  writeFileSync(join(root, "pixel.png"), Buffer.from(PNG_BASE64, "base64"));
  const configDir = join(base, "config", "agent");
  mkdirSync(configDir, { recursive: true });
  writeFileSync(join(configDir, "config.yaml"), providerYaml(cell, `${origin}${vendorPath(cell)}`));
  writeFileSync(join(configDir, "permissions.yaml"), PERMISSIONS);
  const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
  if (cell.provider.auth === "device_a") saveDeviceLogin(join(env.XDG_DATA_HOME, "agent"), cell);
  return { base, root, env };
}

/** A cell that has not finished by then is stopped and fails (a hang would otherwise hold the whole file's pool). */
const CELL_LIMIT_MS = 60_000;

/** Runs the compiled binary in the cell's project (async: the fake answers from this process's event loop). */
export async function runAgent(binary: string, args: string[], p: { root: string; env: Record<string, string> }): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([binary, ...args], { cwd: p.root, env: p.env, stdout: "pipe", stderr: "pipe" });
  let stopped = false;
  const timer = setTimeout(() => {
    stopped = true;
    proc.kill();
  }, CELL_LIMIT_MS);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr: stopped ? `${stderr}\n[stopped after ${CELL_LIMIT_MS / 1000} s]` : stderr };
  } finally {
    clearTimeout(timer);
  }
}

export async function runCell(cell: MatrixCell, binary = BINARY): Promise<CellResult> {
  const fake = startVendorFake(cell, (first) => script(cell, offeredTools(first)));
  const p = cellProject(cell, fake.origin);
  try {
    const prompt = cell.task === "image" ? IMAGE_PROMPT : TOOL_PROMPT;
    const { code, stdout, stderr } = await runAgent(binary, ["exec", ...(cell.modelArg ? ["--model", cell.modelArg] : []), prompt], p);
    const requests = fake.requests.slice();
    const normalized = normalizeRequests(requests, {
      literals: [
        [p.base, "<tmp>"],
        [MATRIX_KEY, "<key>"],
        ["at_matrix_0123456789abcdef", "<device token>"],
      ],
    });
    return { cell, code, stdout, stderr, notes: readFileSync(join(p.root, "notes.txt"), "utf8"), requests, violations: fake.violations, normalized };
  } finally {
    await fake.stop();
    rmSync(p.base, { recursive: true, force: true });
  }
}

/** Runs cells `width` at a time (the CI machine has 2 cores: each cell is two processes plus the fake). */
export async function runPool(cells: MatrixCell[], width = 2, binary = BINARY): Promise<Map<string, CellResult | Error>> {
  const results = new Map<string, CellResult | Error>();
  let next = 0;
  const worker = async () => {
    while (next < cells.length) {
      const cell = cells[next++]!;
      results.set(cell.id, await runCell(cell, binary).catch((e: Error) => e));
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, cells.length) }, worker));
  return results;
}
