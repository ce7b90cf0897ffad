import { describe, expect, test } from "bun:test";
import { SseDecoder } from "../../src/providers/sse.ts";
import { bytesOf, everySplit } from "./decode-helpers.ts";

function parse(chunks: Uint8Array[]): [string, string][] {
  const out: [string, string][] = [];
  const d = new SseDecoder((e, data) => out.push([e, data]));
  for (const c of chunks) d.push(c);
  d.end();
  return out;
}

describe("SseDecoder", () => {
  test("named events, default type, comments, multi-line data, optional space", () => {
    const text = ": keep-alive\nevent: ping\ndata: {}\n\ndata:no-space\ndata:  two\n\nevent: x\n\nretry: 5\nid: 7\ndata: last\n\n";
    expect(parse([bytesOf(text)])).toEqual([
      ["ping", "{}"],
      ["message", "no-space\n two"],
      ["message", "last"],
    ]);
  });

  test("CRLF, CR and LF line ends; BOM at start; unterminated trailing event dropped", () => {
    const text = "\uFEFFevent: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\rdata: 3\n\ndata: partial";
    expect(parse([bytesOf(text)])).toEqual([
      ["a", "1"],
      ["b", "2"],
      ["message", "3"],
    ]);
  });

  test("identical result at every byte boundary, with multi-byte UTF-8 and CRLF", () => {
    const text = "event: t\r\ndata: {\"text\":\"héllo 🌍 世界\"}\r\n\r\n: c\ndata: é\rdata: ü\r\n\r\nevent: end\ndata: [DONE]\n\n";
    const whole = parse([bytesOf(text)]);
    expect(whole).toEqual([
      ["t", '{"text":"héllo 🌍 世界"}'],
      ["message", "é\nü"],
      ["end", "[DONE]"],
    ]);
    const bytes = bytesOf(text);
    for (const chunks of everySplit(bytes)) expect(parse(chunks)).toEqual(whole);
    // Three-way splits around the emoji and the CRLF pairs.
    for (let i = 0; i < bytes.length; i++)
      for (let j = i; j < Math.min(bytes.length, i + 6); j++) expect(parse([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)])).toEqual(whole);
  });
});
