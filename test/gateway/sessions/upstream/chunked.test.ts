// The proxy's strict chunked decoder (src/gateway/sessions/upstream/chunked.ts): one body split at every
// byte boundary, extensions and trailers, the bytes after the body, and each framing error it refuses.
import { describe, expect, test } from "bun:test";
import { ChunkedDecoder, ChunkedFramingError } from "../../../../src/gateway/sessions/upstream/chunked.ts";

function bytes(text: string): Buffer {
  return Buffer.from(text, "latin1");
}

interface Run {
  /** push() results, one per piece. */
  ended: boolean[];
  data: string;
  rest: string;
  done: boolean;
}

/** Feeds `pieces` one push at a time; rethrows anything but ChunkedFramingError. */
function feed(pieces: (string | Buffer)[]): Run {
  const out: Buffer[] = [];
  const decoder = new ChunkedDecoder((b) => out.push(Buffer.from(b)));
  const ended = pieces.map((p) => decoder.push(typeof p === "string" ? bytes(p) : p));
  return { ended, data: Buffer.concat(out).toString("latin1"), rest: decoder.rest().toString("latin1"), done: ended.at(-1) === true };
}

/** "ok" when the whole input frames (and ends), else the error class name; never swallows other errors. */
function frames(...pieces: string[]): "ok" | "incomplete" | "ChunkedFramingError" {
  try {
    const run = feed(pieces);
    return run.ended.at(-1) ? "ok" : "incomplete";
  } catch (e) {
    if (e instanceof ChunkedFramingError) return "ChunkedFramingError";
    throw e;
  }
}

/** Splits `text` at the given offsets (sorted, within bounds). */
function splitAt(text: string, cuts: number[]): string[] {
  const pieces: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    pieces.push(text.slice(from, cut));
    from = cut;
  }
  pieces.push(text.slice(from));
  return pieces;
}

const BODY = "5\r\nhello\r\n1a;name=value;flag\r\nabcdefghijklmnopqrstuvwxyz\r\n3\r\n\r\n\x00\r\n0\r\nX-Trailer: t\r\n\r\n";
const BODY_DATA = "hello" + "abcdefghijklmnopqrstuvwxyz" + "\r\n\x00";
const NEXT = "GET /next HTTP/1.1\r\nHost: x\r\n\r\n";

describe("decoding", () => {
  test("a body in one push yields its data, ends, and leaves nothing", () => {
    const run = feed([BODY]);
    expect(run).toEqual({ ended: [true], data: BODY_DATA, rest: "", done: true });
  });

  test("the same body split in two at every byte boundary gives the same data and ends only at the last byte", () => {
    for (let cut = 0; cut <= BODY.length; cut++) {
      const run = feed(splitAt(BODY, [cut]));
      expect({ cut, data: run.data, rest: run.rest, done: run.done }).toEqual({ cut, data: BODY_DATA, rest: "", done: true });
      expect({ cut, ended: run.ended }).toEqual({ cut, ended: cut === BODY.length ? [true, true] : [false, true] });
    }
  });

  test("the same body split in three at every pair of byte boundaries gives the same data", () => {
    for (let a = 1; a < BODY.length; a++) {
      for (let b = a; b < BODY.length; b++) {
        const run = feed(splitAt(BODY, [a, b]));
        if (run.data !== BODY_DATA || !run.done || run.rest !== "" || run.ended[0] || run.ended[1] || !run.ended[2]) {
          throw new Error(`split at ${a},${b}: ${JSON.stringify(run)}`);
        }
      }
    }
  });

  test("one byte per push gives the same data and ends only on the last byte", () => {
    const run = feed(BODY.split(""));
    expect(run.data).toBe(BODY_DATA);
    expect(run.ended.indexOf(true)).toBe(BODY.length - 1);
    expect(run.done).toBe(true);
  });

  test("data is handed out as it arrives, before the chunk is complete", () => {
    const out: string[] = [];
    const decoder = new ChunkedDecoder((b) => out.push(b.toString("latin1")));
    expect(decoder.push(bytes("a\r\n01234"))).toBe(false);
    expect(out.join("")).toBe("01234");
    expect(decoder.push(bytes("56789\r\n0\r\n\r\n"))).toBe(true);
    expect(out.join("")).toBe("0123456789");
  });

  test("an empty body (just the last chunk) ends with no data", () => {
    expect(feed(["0\r\n\r\n"])).toEqual({ ended: [true], data: "", rest: "", done: true });
  });

  test("hex sizes are read in either case and with leading zeros, up to 12 digits", () => {
    const data = "x".repeat(0xab);
    expect(feed([`AB\r\n${data}\r\n0\r\n\r\n`]).data).toBe(data);
    expect(feed([`aB\r\n${data}\r\n0\r\n\r\n`]).data).toBe(data);
    expect(feed([`0000000000ab\r\n${data}\r\n000\r\n\r\n`]).data).toBe(data);
  });

  test("a 12-digit size is accepted and waits for its data", () => {
    expect(frames("ffffffffffff\r\nabc")).toBe("incomplete");
  });

  test("binary data, including CRLF and bytes >= 0x80, passes through untouched", () => {
    const data = Buffer.from([0, 13, 10, 13, 10, 0x30, 0x0d, 0x0a, 0xff, 0x80]);
    const out: Buffer[] = [];
    const decoder = new ChunkedDecoder((b) => out.push(Buffer.from(b)));
    expect(decoder.push(Buffer.concat([bytes("a\r\n"), data, bytes("\r\n0\r\n\r\n")]))).toBe(true);
    expect(Buffer.concat(out).equals(data)).toBe(true);
  });
});

describe("extensions, trailers and what follows", () => {
  test("chunk extensions are accepted and never reach the data", () => {
    const run = feed(['3;a=b;c="quoted ; value"\r\nabc\r\n2;x\r\nde\r\n0;last=1\r\n\r\n']);
    expect(run.data).toBe("abcde");
    expect(run.done).toBe(true);
  });

  test("whitespace (space/tab) after the size is refused, as llhttp refuses it", () => {
    expect(frames("3 \r\nabc\r\n0\r\n\r\n")).toBe("ChunkedFramingError");
    expect(frames("3\t;x\r\nabc\r\n0\r\n\r\n")).toBe("ChunkedFramingError");
    expect(frames("3 ;x\r\nabc\r\n0\r\n\r\n")).toBe("ChunkedFramingError");
  });

  test("a trailer line that is not a field (no name, no colon, a control character) is refused, as llhttp refuses it", () => {
    expect(frames("0\r\nHTTP/1.1 200 OK\r\n\r\n")).toBe("ChunkedFramingError");
    expect(frames("0\r\n: v\r\n\r\n")).toBe("ChunkedFramingError");
    expect(frames("0\r\nX: a\x01b\r\n\r\n")).toBe("ChunkedFramingError");
  });

  test("chunk extensions must be tokens or quoted strings", () => {
    expect(frames("3;a b\r\nabc\r\n0\r\n\r\n")).toBe("ChunkedFramingError");
    expect(frames('3;a="unterminated\r\nabc\r\n0\r\n\r\n')).toBe("ChunkedFramingError");
    expect(frames("3;=v\r\nabc\r\n0\r\n\r\n")).toBe("ChunkedFramingError");
  });

  test("trailer fields are read and dropped", () => {
    const run = feed(["3\r\nabc\r\n0\r\nX-Checksum: 123\r\nX-Other: y\r\n\r\n"]);
    expect(run).toEqual({ ended: [true], data: "abc", rest: "", done: true });
  });

  test("the body ends only at an empty line, not at a short trailer line", () => {
    const out: Buffer[] = [];
    const decoder = new ChunkedDecoder((b) => out.push(b));
    expect(decoder.push(bytes("0\r\nX:\r\n"))).toBe(false);
    expect(decoder.push(bytes("A:\r\n"))).toBe(false);
    expect(decoder.push(bytes(`\r\n${NEXT}`))).toBe(true);
    expect(decoder.rest().toString("latin1")).toBe(NEXT);
  });

  test("rest() returns exactly the bytes after the final CRLF (a pipelined request)", () => {
    expect(feed([`3\r\nabc\r\n0\r\n\r\n${NEXT}`]).rest).toBe(NEXT);
    expect(feed([`3\r\nabc\r\n0\r\nX-T: 1\r\n\r\n${NEXT}`]).rest).toBe(NEXT);
    // a pipelined request that starts with CRLF is not eaten as part of the body
    expect(feed([`0\r\n\r\n\r\n${NEXT}`]).rest).toBe(`\r\n${NEXT}`);
  });

  test("rest() is right at every split of body plus pipelined request, and bytes pushed after the end are kept", () => {
    const all = BODY + NEXT;
    for (let cut = 0; cut <= all.length; cut++) {
      const run = feed(splitAt(all, [cut]));
      expect({ cut, data: run.data, rest: run.rest }).toEqual({ cut, data: BODY_DATA, rest: NEXT });
      expect(run.ended[1]).toBe(true);
      expect(run.ended[0]).toBe(cut >= BODY.length);
    }
  });

  test("pushes after the end only add to rest() and report ended", () => {
    const out: Buffer[] = [];
    const decoder = new ChunkedDecoder((b) => out.push(b));
    expect(decoder.push(bytes("0\r\n\r\nGET"))).toBe(true);
    expect(decoder.push(bytes(" / HTTP/1.1\r\n"))).toBe(true);
    expect(decoder.rest().toString("latin1")).toBe("GET / HTTP/1.1\r\n");
    expect(out).toEqual([]);
  });
});

describe("framing errors", () => {
  test("invalid chunk sizes throw", () => {
    for (const size of ["zz", "-5", "-0", "+5", "0x5", "x5", "5x", "1234567890123", "0000000000005", "", " 5", "\t5", "5 6", "5,6", "5 x", "5\x00"]) {
      expect({ size, result: frames(`${size}\r\nhello\r\n0\r\n\r\n`) }).toEqual({ size, result: "ChunkedFramingError" });
    }
  });

  test("an invalid last-chunk size throws", () => {
    expect(frames("5\r\nhello\r\n0x0\r\n\r\n")).toBe("ChunkedFramingError");
    expect(frames("5\r\nhello\r\n-0\r\n\r\n")).toBe("ChunkedFramingError");
  });

  test("chunk data not followed by CRLF throws", () => {
    expect(frames("5\r\nhelloX\r\n0\r\n\r\n")).toBe("ChunkedFramingError");
    expect(frames("5\r\nhello\n0\r\n\r\n")).toBe("ChunkedFramingError");
    expect(frames("5\r\nhello\r0\r\n\r\n")).toBe("ChunkedFramingError");
    expect(frames("5\r\nhello0\r\n\r\n")).toBe("ChunkedFramingError");
    // more data than the size announces
    expect(frames("3\r\nhello\r\n0\r\n\r\n")).toBe("ChunkedFramingError");
    // two stray bytes in place of the CRLF, followed by a valid last chunk: must not be skipped
    expect(frames("5\r\nhelloXX0\r\n\r\n")).toBe("ChunkedFramingError");
    expect(frames("5\r\nhello\n\r0\r\n\r\n")).toBe("ChunkedFramingError");
    expect(frames("5\r\nhello", "\r", "X0\r\n\r\n")).toBe("ChunkedFramingError");
  });

  test("chunk data not followed by CRLF throws even when the bytes come one at a time", () => {
    expect(() => feed("5\r\nhelloXY\r\n".split(""))).toThrow(ChunkedFramingError);
  });

  test("an LF-only line ending in the size line throws", () => {
    expect(frames("5\nhello\r\n0\r\n\r\n")).toBe("ChunkedFramingError");
    expect(frames("5;ext\nhello\r\n0\r\n\r\n")).toBe("ChunkedFramingError");
    expect(frames("5\r\nhello\r\n0\n\r\n")).toBe("ChunkedFramingError");
  });

  test("a bare CR in the size line throws", () => {
    expect(frames("5\r\r\nhello\r\n0\r\n\r\n")).toBe("ChunkedFramingError");
    expect(frames("5;a\rb\r\nhello\r\n0\r\n\r\n")).toBe("ChunkedFramingError");
  });

  test("a bare LF or CR inside a trailer line throws", () => {
    expect(frames("0\r\nX-A: a\nX-B: b\r\n\r\n")).toBe("ChunkedFramingError");
    expect(frames("0\r\nX-A: a\rb\r\n\r\n")).toBe("ChunkedFramingError");
  });

  test("a size line without end longer than 4096 bytes throws", () => {
    expect(frames(`5;${"a".repeat(4094)}`)).toBe("incomplete");
    expect(frames(`5;${"a".repeat(4100)}`)).toBe("ChunkedFramingError");
    expect(frames("0".repeat(5000))).toBe("ChunkedFramingError");
  });

  test("a size line growing past 4096 bytes over several pushes throws", () => {
    expect(() => feed(["5;", ...Array.from({ length: 10 }, () => "a".repeat(500))])).toThrow(ChunkedFramingError);
  });

  test("a size line over 4096 bytes throws even when its CRLF arrives in the same push", () => {
    expect(frames(`5;${"a".repeat(6000)}\r\nhello\r\n0\r\n\r\n`)).toBe("ChunkedFramingError");
  });

  test("trailers over 16 KiB throw, complete or not", () => {
    const line = `X-Pad: ${"a".repeat(1000)}\r\n`;
    expect(frames(`0\r\n${line.repeat(20)}\r\n`)).toBe("ChunkedFramingError");
    expect(frames(`0\r\n${line.repeat(20)}`)).toBe("ChunkedFramingError");
    expect(frames(`0\r\nX-Pad: ${"a".repeat(17 * 1024)}`)).toBe("ChunkedFramingError");
    expect(frames(`0\r\nX-Pad: ${"a".repeat(17 * 1024)}\r\n\r\n`)).toBe("ChunkedFramingError");
  });

  test("oversized trailers throw when fed line by line too", () => {
    const line = `X-Pad: ${"a".repeat(1000)}\r\n`;
    expect(() => feed(["0\r\n", ...Array.from({ length: 20 }, () => line), "\r\n"])).toThrow(ChunkedFramingError);
  });

  test("trailers under 16 KiB are fine", () => {
    const line = `X-Pad: ${"a".repeat(1000)}\r\n`;
    expect(frames(`0\r\n${line.repeat(15)}\r\n`)).toBe("ok");
  });

  test("ChunkedFramingError is an Error with its own name", () => {
    let caught: unknown;
    try {
      feed(["zz\r\n"]);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ChunkedFramingError);
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).name).toBe("ChunkedFramingError");
  });
});
