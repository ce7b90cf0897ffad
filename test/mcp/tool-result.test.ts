// Mapping of MCP call results and tool names onto the engine's shapes, for content the reference servers
// do not produce on demand.
import { describe, expect, test } from "bun:test";
import { engineToolName, toToolResult } from "../../src/mcp/tools.ts";
import { MAX_IMAGE_BASE64 } from "../../src/tools/tool.ts";

const meta = { server: "s", tool: "t" };

describe("toToolResult", () => {
  test("resource links, embedded resources and audio become text the model can read", () => {
    const result = toToolResult(
      {
        content: [
          { type: "resource_link", uri: "file:///a.txt", name: "a.txt", description: "the file" },
          { type: "resource", resource: { uri: "file:///b.txt", text: "inside b" } },
          { type: "resource", resource: { uri: "file:///c.bin", blob: "AAAA", mimeType: "application/octet-stream" } },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        ],
      },
      { supportsVision: true },
      meta,
    );
    expect(result.output).toBe(
      "[resource: a.txt <file:///a.txt> — the file]\n[resource <file:///b.txt>]\ninside b\n" +
        "[binary resource <file:///c.bin> (application/octet-stream) not shown]\n[audio (audio/wav) not shown]",
    );
    expect(result.isError).toBeUndefined();
  });

  test("an image over 5 MiB of base64 (Anthropic's limit) is described, not sent", () => {
    const fits = "A".repeat(MAX_IMAGE_BASE64);
    const result = toToolResult({ content: [{ type: "image", data: fits, mimeType: "image/png" }, { type: "image", data: `${fits}AAAA`, mimeType: "image/png" }] }, { supportsVision: true }, meta);
    expect(result.images).toEqual([{ mediaType: "image/png", data: fits }]);
    expect(result.output).toBe("[image (image/png, 3.8 MB) not shown: over the 5.0 MB of base64 an image may have]");
  });

  test("an image type providers cannot take is described even for vision models", () => {
    const result = toToolResult({ content: [{ type: "image", data: "AAAA", mimeType: "image/svg+xml" }] }, { supportsVision: true }, meta);
    expect(result).toEqual({ output: "[image (image/svg+xml) not shown: unsupported image type]", metadata: meta });
  });

  test("structured content is added when the text lacks its values, and isError carries over", () => {
    const result = toToolResult({ content: [{ type: "text", text: "Lookup failed" }], structuredContent: { code: 7 }, isError: true }, { supportsVision: false }, meta);
    expect(result).toEqual({ output: 'Lookup failed\n{\n  "code": 7\n}', isError: true, metadata: meta });
  });

  test("an error without content still tells the model something", () => {
    expect(toToolResult({ content: [], isError: true }, { supportsVision: false }, meta).output).toBe("The tool reported an error without a message.");
  });
});

describe("engineToolName", () => {
  test("keeps valid names, replaces characters providers refuse, shortens long names stably", () => {
    expect(engineToolName("github", "create_issue")).toBe("mcp__github__create_issue");
    expect(engineToolName("my.srv", "tool name/1")).toBe("mcp__my_srv__tool_name_1");
    const long = engineToolName("server", "x".repeat(80));
    expect(long).toHaveLength(64);
    expect(long).toBe(engineToolName("server", "x".repeat(80)));
    expect(long).not.toBe(engineToolName("server", "x".repeat(81)));
  });
});
