// A tool server's request for input (MCP elicitation) through the compiled binary in a real terminal: the
// scripted model calls a tool of a trusted project's stdio server (an SDK McpServer), the server sends
// elicitation/create, the view shows the form, the person fills it in and submits, and the tool's result
// (what the server received) shows in the conversation. Declining is the server's answer too.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { scriptedProject, send, Terminals } from "./tui-harness.ts";

const terminals = new Terminals();
const SERVER = join(import.meta.dir, "..", "mcp", "fixtures", "asking-server.ts");

beforeAll(() => ensureBinary(), 300_000);
afterAll(() => terminals.closeAll(), 60_000);

/** A project whose config names the asking server, trusted with `agent trust` as a person would. */
function project(answer: string) {
  const p = scriptedProject(`responses:\n  - tool_calls:\n      - { name: mcp__book__book-table, arguments: {} }\n  - text: "${answer}"\n`);
  writeFileSync(
    join(p.root, ".agent", "config.yaml"),
    `providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\ndefault_permission_matcher: bypass\nmcp_servers:\n  book: { transport: stdio, command: "${process.execPath}", args: ["${SERVER}"] }\n`,
  );
  const trust = Bun.spawnSync([BINARY, "trust", p.root], { cwd: p.root, env: p.env, stdout: "pipe", stderr: "pipe" });
  if (trust.exitCode !== 0) throw new Error(`agent trust failed: ${trust.stderr}`);
  return p;
}

/** The row the form's cursor is on. */
const cursorOn = (title: string) => new RegExp(`❯ ${title}`);

/** A view on a new session of a trusted project whose model answers `answer` after the tool; its form is open. */
async function formOpen(answer: string) {
  const p = project(answer);
  const t = terminals.start(p, ["new"]);
  await t.waitFor("Type a message", "the conversation view");
  terminals.sessionOf(t, p);
  await t.waitFor("tool server book: connected", "the tool server to connect");
  await send(t, "book a table");
  await t.waitFor("Tool server book asks: Who is the table for?", "the form");
  return t;
}

describe("a tool server's form (compiled binary, real terminal)", () => {
  test("the form shows the server's fields; the values typed and submitted reach the server, whose result is shown", async () => {
    const t = await formOpen("The table is booked.");
    const form = t.screen();
    expect(form).toContain("Name *:");
    expect(form).toContain("The name the table is booked under");
    expect(form).toContain("Guests: 2");
    expect(form).toContain("Terrace: [ ] no");

    t.write("Ada Lovelace");
    await t.waitFor("Name *: Ada Lovelace", "the typed name");
    t.write("\r");
    await t.waitFor(cursorOn("Guests"), "the cursor on Guests");
    t.write("\x7f");
    await t.waitFor((s) => !s.screen().includes("Guests: 2"), "the default number erased");
    t.write("4");
    await t.waitFor("Guests: 4", "the typed number");
    t.write("\r");
    await t.waitFor(cursorOn("Terrace"), "the cursor on Terrace");
    t.write(" ");
    await t.waitFor("Terrace: [x] yes", "the toggled yes/no");
    t.write("\r");
    await t.waitFor(cursorOn("Submit"), "the cursor on Submit");
    t.write("\r");

    await t.waitFor("booked a table for Ada Lovelace: 4 guests, terrace yes", "the server's result");
    await t.waitFor("The table is booked.", "the model's answer after the result");
    expect(t.screen()).not.toContain("Who is the table for?");
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
  }, 120_000);

  test("Decline on the form is what the server receives", async () => {
    const t = await formOpen("Not booked then.");
    // Three rows down from the name is Submit; Right moves to Decline.
    t.write("\x1b[B");
    await t.waitFor(cursorOn("Guests"), "the cursor on Guests");
    t.write("\x1b[B");
    await t.waitFor(cursorOn("Terrace"), "the cursor on Terrace");
    t.write("\x1b[B");
    await t.waitFor(cursorOn("Submit"), "the cursor on Submit");
    t.write("\x1b[C");
    await t.waitFor(cursorOn("Decline"), "the cursor on Decline");
    t.write("\r");
    await t.waitFor("not booked: the user chose decline", "the server's result");
    await t.waitFor("Not booked then.", "the model's answer");
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
  }, 120_000);
});
