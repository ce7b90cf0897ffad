// Resources for the model (issue 23 item 6): with the everything server connected, the model gets
// list_mcp_resources and read_mcp_resource; a read is capped like any tool result (the whole text in a file).
import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { McpManager, McpServerConfig } from "../../src/mcp/index.ts";
import { EVERYTHING_BIN, runNamed, testManager } from "./helpers.ts";

let open: McpManager[] = [];
afterEach(async () => {
  await Promise.all(open.map((m) => m.close()));
  open = [];
});

test("the model lists the everything server's resources and reads one; a long one is capped with the whole text kept", async () => {
  const { manager } = testManager({ ev: { transport: "stdio", command: EVERYTHING_BIN, args: ["stdio"], pass_env: ["PATH"], max_output_bytes: 1024 } as McpServerConfig });
  open.push(manager);
  await manager.start();
  const names = manager.tools().map((t) => t.name);
  expect(names).toContain("list_mcp_resources");
  expect(names).toContain("read_mcp_resource");

  const listed = await runNamed(manager, "list_mcp_resources", {});
  expect(listed.isError).toBeUndefined();
  const uris = [...listed.output.matchAll(/^ev {2}(\S+)/gm)].map((m) => m[1]!);
  expect(uris.length).toBeGreaterThan(0);

  const all = await manager.resources("ev");
  const texts = await Promise.all(all.map(async (r) => ({ r, text: (await manager.readResource("ev", r.uri)).contents.map((c) => ("text" in c ? c.text : "")).join("\n") })));
  const { r: big, text: whole } = texts.sort((a, b) => b.text.length - a.text.length)[0]!;
  expect(Buffer.byteLength(whole)).toBeGreaterThan(1024);
  const read = await runNamed(manager, "read_mcp_resource", { server: "ev", uri: big.uri });
  expect(read.isError).toBeUndefined();
  expect(Buffer.byteLength(read.output)).toBeLessThan(1024 + 600);
  const file = /The whole result is in (\S+):/.exec(read.output)![1]!;
  expect(readFileSync(file, "utf8")).toContain(whole.slice(0, 200));

  const wrong = await runNamed(manager, "read_mcp_resource", { server: "nope", uri: big.uri });
  expect(wrong).toMatchObject({ isError: true, output: "No connected tool server named `nope` offers resources. Servers with resources: ev." });
}, 30_000);
