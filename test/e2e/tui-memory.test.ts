// Issue 27 item 6, memory: the conversation view (compiled binary, real terminal) gives back the code
// pages its drawing touched once it has been quiet for an interval after a turn (src/cli/tui-memory.ts),
// and works on as before: the next prompt is typed, sent, answered and drawn.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ensureBinary } from "../helpers/binary.ts";
import { rssFileKb } from "../helpers/processes.ts";
import { scriptedProject, send, Terminals } from "./tui-harness.ts";

const terminals = new Terminals();

beforeAll(() => ensureBinary(), 180_000);
afterAll(() => terminals.closeAll(), 60_000);

/** Polls `cond` every 50 ms until it holds; fails naming `what` after `deadlineMs`. */
async function eventually(cond: () => boolean, what: string, deadlineMs: number): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await Bun.sleep(50);
  }
}

test.skipIf(process.platform !== "linux")("a quiet view gives its code pages back and answers the next prompt as before", async () => {
  const p = scriptedProject(`responses:
  - text: "first answer drawn"
  - text: "second answer drawn"
`);
  const t = terminals.start(p, ["new", "first"]);
  await t.waitFor((s) => s.text().includes("first answer drawn") && /ready\s/.test(s.screen()), "the first answer");
  terminals.sessionOf(t, p);
  const drawn = rssFileKb(t.proc.pid);
  // Quiet for one 2 s interval after the turn: the code pages go back (the daemon's test asks the same).
  await eventually(() => rssFileKb(t.proc.pid) < drawn * 0.6, `the view's file-backed pages below 60% of the ${drawn} kB it held after drawing the turn`, 20_000);

  await send(t, "second");
  await t.waitFor((s) => s.text().includes("second answer drawn") && /ready\s/.test(s.screen()), "the second answer");
  expect(t.proc.exitCode).toBeNull();
}, 60_000);
