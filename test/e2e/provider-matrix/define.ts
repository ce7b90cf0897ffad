// One test file's part of the provider matrix: its cells run in a pool before the tests (each cell is a
// compiled `agent exec` against its vendor's strict fake, well under a second on an idle machine), then
// one test per cell checks what a user would see and what the vendor received.
import { beforeAll, describe, expect, test } from "bun:test";
import { ensureBinary } from "../../helpers/binary.ts";
import { TOOL_IMAGE_NOTE } from "../../../src/providers/client.ts";
import { AWAITING_FIX } from "./awaiting.ts";
import { cellsOfFile, MATRIX_FILES, type MatrixCell } from "./cells.ts";
import { readFixture, splitTools, UPDATE, writeFixture } from "./fixtures.ts";
import { type CellResult, runPool } from "./run-cell.ts";
import { EDITED, IMAGE_ANSWER, PNG_BASE64, TOOL_ANSWER } from "./task.ts";
import { vendorPath } from "./vendor-fake.ts";

const ENDPOINT = { a_messages: "/v1/messages", b_chat_completions: "/chat/completions", b_responses: "/responses" } as const;

export function checkCell(cell: MatrixCell, r: CellResult | Error | undefined): void {
  if (!r) throw new Error(`cell ${cell.id} did not run`);
  if (r instanceof Error) throw r;
  // The vendor's refusal first: it says which rule the request broke.
  expect(r.violations).toEqual([]);
  if (r.code !== 0) throw new Error(`agent exec exited ${r.code}; stderr:\n${r.stderr}`);
  const image = cell.task === "image";
  expect(r.stdout).toBe(`${image ? IMAGE_ANSWER : TOOL_ANSWER}\n`);
  expect(r.requests.length).toBe(image ? 2 : 4);
  const dialect = r.requests[0]!.path.endsWith("/messages") ? "a_messages" : r.requests[0]!.path.endsWith("/responses") ? "b_responses" : "b_chat_completions";
  for (const req of r.requests) {
    expect(req.path).toBe(`${vendorPath(cell)}${ENDPOINT[dialect]}`);
    expect(req.body?.model).toBe(cell.model);
  }
  const sent = r.requests.map((q) => JSON.stringify(q.body));
  // An effort level asked for is sent (the fixture shows in which field).
  if (cell.level !== "none" && cell.level !== "thinking") expect(sent[0]).toContain(`"${cell.level}"`);
  if (image && cell.toolImages !== "none") {
    // The PNG the read tool returned reaches the vision model, in the dialect's own form.
    expect(sent[1]).toContain(PNG_BASE64);
  } else if (image) {
    // The family says the vendor takes no images from tools: the model is told the image was left out.
    expect(sent[1]).not.toContain(PNG_BASE64);
    expect(sent[1]).toContain(JSON.stringify(TOOL_IMAGE_NOTE).slice(1, -1));
  } else {
    expect(r.notes).toBe(EDITED);
    // The command's output (the edited file) went back to the model.
    expect(sent[3]).toContain(JSON.stringify(EDITED.trimEnd()).slice(1, -1));
  }
  const fixture = splitTools(r.normalized, cell.provider.name, cell.editFormat);
  if (UPDATE) return writeFixture(cell.id, cell.provider.name, cell.editFormat, fixture);
  const stored = readFixture(cell.id, cell.provider.name, cell.editFormat);
  if (!stored.requests || (fixture.tools && !stored.tools)) {
    throw new Error(`no fixture for ${cell.id}: run UPDATE_FIXTURES=1 bun test --timeout 30000 test/e2e/provider-matrix-*.test.ts and review the new files`);
  }
  expect(fixture.requests).toEqual(stored.requests);
  expect(fixture.tools).toEqual(stored.tools);
}

export function defineMatrixFile(index: number): void {
  const cells = cellsOfFile(index);
  const runnable = cells.filter((c) => !AWAITING_FIX[c.id]);
  let results = new Map<string, CellResult | Error>();
  beforeAll(() => ensureBinary(), 240_000);
  // Every cell of the file, two at a time (2 cores in CI); the tests below only read the results.
  beforeAll(async () => {
    results = await runPool(runnable, 2);
  }, 240_000);

  describe(`provider matrix, part ${index + 1} of ${MATRIX_FILES}`, () => {
    for (const cell of cells) {
      const waiting = AWAITING_FIX[cell.id];
      if (waiting) test.skip(`${cell.id} (waits for: ${waiting})`, () => {});
      else test(cell.id, () => checkCell(cell, results.get(cell.id)));
    }
  });
}
