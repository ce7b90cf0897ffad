// Differential fuzz of the proxy's own HTTP/1.1 response parser and chunked decoder
// (src/gateway/sessions/upstream/response-parser.ts, chunked.ts) against llhttp, the parser node:http
// uses (llhttp-reference.ts). Generated responses, well formed and broken on purpose (framing headers,
// chunk sizes, extensions, trailers, line endings, control bytes, random byte edits), split at random
// points, go through both parsers. The rules:
// - whatever ours frames, llhttp frames the same way: status, reason, end-to-end headers, body bytes, the
//   bytes left after the response, and ours keeps the connection only where llhttp would;
// - ours may refuse what llhttp accepts (it is stricter on purpose), never the other way round;
// - every unedited well-formed response is framed by ours (so refusing everything cannot pass);
// - ours gives the same answer however the bytes are split.
// A fixed seed runs in every CI run, plus a seed from UPSTREAM_FUZZ_SEED (else one picked at random and
// printed), each bounded by a case count and a time budget. A failure prints the seed and the case.
import { describe, expect, test } from "bun:test";
import { HOP_BY_HOP, ResponseFramingError, type ResponseHead, ResponseParser } from "../../../../src/gateway/sessions/upstream/response-parser.ts";
import { type ReferenceOutcome, referenceParse } from "./llhttp-reference.ts";

const FIXED_SEED = 0x5eed_2024;
const CASES = 10_000;
const BUDGET_MS = 2000;

/** mulberry32: small, fast, and the same sequence everywhere for a seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Gen {
  constructor(readonly random: () => number) {}
  int(n: number): number {
    return Math.floor(this.random() * n);
  }
  chance(p: number): boolean {
    return this.random() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  text(alphabet: string, max: number): string {
    let s = "";
    for (let n = this.int(max + 1); n > 0; n--) s += alphabet[this.int(alphabet.length)];
    return s;
  }
}

const BODY_BYTES = "abcxyz0129 \r\n\t;:\x00\xff";
const INTERESTING = ["\r", "\n", "\r\n", "\0", " ", "\t", ":", ";", "0", "9", "a", "f", "F", "x", "-", "+", ",", "\x7f", "\x80", "\xff", "H", "/"];

interface Case {
  method: string;
  bytes: string;
  /** No edit made it on purpose outside what HTTP/1.1 allows. */
  wellFormed: boolean;
}

function statusLine(g: Gen, status: number): { line: string; ok: boolean } {
  const reason = g.pick(["OK", "Not Found", "", "Some reason with spaces", "x"]);
  const variants: [string, boolean][] = [
    [`HTTP/1.1 ${status} ${reason}`, true],
    [`HTTP/1.0 ${status} ${reason}`, true],
    [`HTTP/1.1 ${status}`, true],
    [`HTTP/1.1 ${status} `, true],
    [`HTTP/2.0 ${status} OK`, false],
    [`HTTP/1.1  ${status} OK`, false],
    [`http/1.1 ${status} OK`, false],
    [`HTTP/1.1 ${String(status).slice(0, 2)} OK`, false],
    [`HTTP/1.1 ${status}0 OK`, false],
    [`HTTP/1.1 ${status} OK\x01`, false],
  ];
  const [line, ok] = g.chance(0.8) ? variants[g.int(4)]! : g.pick(variants);
  return { line, ok };
}

function chunkedBody(g: Gen, data: string): { bytes: string; ok: boolean } {
  let out = "";
  let ok = true;
  let at = 0;
  while (at < data.length) {
    const n = 1 + g.int(Math.min(data.length - at, 40));
    let size = n.toString(16);
    if (g.chance(0.2)) size = size.toUpperCase();
    if (g.chance(0.1)) size = "00" + size;
    let ext = "";
    if (g.chance(0.15)) ext = g.pick([";name=value", ";flag", ";a=\"quoted\""]);
    // Whitespace after the size: RFC 9112 allows it before ";", llhttp and ours refuse it.
    else if (g.chance(0.03)) {
      ext = g.pick([" ;x", "\t;y=1", " "]);
      ok = false;
    }
    out += `${size}${ext}\r\n${data.slice(at, at + n)}\r\n`;
    at += n;
  }
  out += g.chance(0.1) ? "000\r\n" : "0\r\n";
  if (g.chance(0.2)) out += g.pick(["X-Trailer: t\r\n", "Expires: never\r\nX-Two: 2\r\n"]);
  out += "\r\n";
  if (g.chance(0.25)) {
    ok = false;
    const broken = g.pick<(s: string) => string>([
      (s) => s.replace(/\r\n/, "\n"),
      (s) => s.replace(/^[0-9a-fA-F]+/, (m) => "-" + m),
      (s) => s.replace(/^[0-9a-fA-F]+/, "fffffffffffffff"),
      (s) => s.replace(/^[0-9a-fA-F]+/, "zz"),
      (s) => s.replace(/^([0-9a-fA-F]+)\r\n/, "$1 x\r\n"),
      (s) => s.replace(/\r\n0\r\n/, "0\r\n"),
      (s) => s.slice(0, s.length - 2),
      (s) => s + "garbage",
      (s) => s.replace(/\r\n\r\n$/, "\r\nBad Trailer\r\n\r\n"),
      (s) => s.replace(/0\r\n/, "0\r\n\n"),
    ]);
    out = broken(out);
  }
  return { bytes: out, ok };
}

function makeCase(g: Gen): Case {
  const method = g.chance(0.1) ? "HEAD" : g.pick(["GET", "POST"]);
  let wellFormed = true;
  let bytes = "";
  // Interim responses first, sometimes.
  for (let n = g.chance(0.1) ? 1 + g.int(2) : 0; n > 0; n--) bytes += `HTTP/1.1 ${g.pick([100, 102, 103])} Continue\r\n${g.chance(0.3) ? "Link: </a>\r\n" : ""}\r\n`;
  const status = g.chance(0.75) ? g.pick([200, 201, 404, 500]) : g.pick([101, 204, 206, 301, 304, 999, 600, 199]);
  const sl = statusLine(g, status);
  wellFormed &&= sl.ok && status < 600 && status !== 101 && status !== 199;
  bytes += sl.line + "\r\n";
  const data = g.text(BODY_BYTES, g.chance(0.1) ? 300 : 60);
  const framing = g.pick(["length", "length", "chunked", "chunked", "close"] as const);
  const headers: string[] = [];
  const add = (line: string, ok = true) => {
    headers.push(line);
    wellFormed &&= ok;
  };
  if (g.chance(0.7)) add(`Content-Type: ${g.pick(["text/plain", "application/json; charset=utf-8"])}`);
  if (g.chance(0.3)) add(`X-Custom: ${g.pick(["v", "  padded  ", "a, b", "\tt", "", "\x80\xff"])}`);
  if (g.chance(0.2)) add(`Connection: ${g.pick(["close", "keep-alive", "close, X-Custom", "X-Custom", "Keep-Alive, Upgrade"])}`);
  if (g.chance(0.05)) add("Keep-Alive: timeout=5");
  let body = "";
  if (framing === "length") {
    const value = g.chance(0.85)
      ? [String(data.length), true] as const
      : g.pick([[` ${data.length}`, true], [`${data.length} `, true], [`+${data.length}`, false], [`0x${data.length.toString(16)}`, false], ["", false], [`${data.length}, ${data.length}`, false], ["99999999999999999999", false], [`${data.length + 3}`, false], [`${Math.max(0, data.length - 3)}`, false]] as const);
    add(`Content-Length: ${value[0]}`, value[1]);
    if (g.chance(0.05)) add(`Content-Length: ${g.pick([String(data.length), "7"])}`, false); // refused even when equal
    body = data;
  } else if (framing === "chunked") {
    const te = g.chance(0.85) ? ["chunked", true] as const : g.pick([["Chunked", true], ["gzip, chunked", true], ["chunked, gzip", false], ["identity", false], [" chunked ", true], ["chunked;q=1", false], ["xchunked", false]] as const);
    add(`Transfer-Encoding: ${te[0]}`, te[1]);
    if (g.chance(0.05)) add("Transfer-Encoding: chunked", false);
    if (g.chance(0.08)) add(`Content-Length: ${data.length}`, false);
    const encoded = chunkedBody(g, data);
    wellFormed &&= encoded.ok;
    body = encoded.bytes;
  } else {
    body = data;
  }
  // Header-level breakage.
  if (g.chance(0.12)) {
    add(g.pick(["X-Folded: a\r\n  b", "Bad Name: x", "X-Bad : x", ": empty", "NoColon", "X-Nul: a\0b", "X-Cr: a\rb", "X-Lf: a\nb", "X\x01: y", "X-Del: \x7f"]), false);
  }
  for (let i = headers.length - 1; i > 0; i--) {
    const j = g.int(i + 1);
    [headers[i], headers[j]] = [headers[j]!, headers[i]!];
  }
  bytes += headers.map((h) => h + "\r\n").join("") + "\r\n" + body;
  // What follows: another response on the same connection, or nothing.
  if (framing !== "close" && g.chance(0.2)) bytes += "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
  // Random byte edits.
  if (g.chance(0.3)) {
    wellFormed = false;
    for (let n = 1 + g.int(3); n > 0; n--) {
      const at = g.int(bytes.length + 1);
      const op = g.int(3);
      if (op === 0) bytes = bytes.slice(0, at) + g.pick(INTERESTING) + bytes.slice(at + 1);
      else if (op === 1) bytes = bytes.slice(0, at) + g.pick(INTERESTING) + bytes.slice(at);
      else bytes = bytes.slice(0, at) + bytes.slice(at + 1);
    }
  }
  return { method, bytes, wellFormed };
}

function split(g: Gen, bytes: Buffer): Buffer[] {
  if (g.chance(0.05)) return [...bytes].map((b) => Buffer.from([b]));
  const cuts = Array.from({ length: g.int(5) }, () => g.int(bytes.length + 1)).sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of cuts) {
    out.push(bytes.subarray(from, cut));
    from = cut;
  }
  out.push(bytes.subarray(from));
  return out;
}

type Outcome =
  | { kind: "response"; head: ResponseHead; body: Buffer; rest: Buffer }
  | { kind: "error"; reason: string }
  | { kind: "incomplete" };

/** The proxy's parser over the same segments; at the end the connection closes (eof). */
function oursParse(method: string, segments: Buffer[]): Outcome {
  let head: ResponseHead | undefined;
  const body: Buffer[] = [];
  let ended = false;
  const parser = new ResponseParser(method, {
    head: (h) => (head = h),
    body: (b) => body.push(Buffer.from(b)),
    end: () => (ended = true),
  });
  try {
    for (const s of segments) if (s.length) parser.push(s);
    const rest = Buffer.from(parser.rest());
    if (!ended) parser.eof();
    return { kind: "response", head: head!, body: Buffer.concat(body), rest: ended ? rest : Buffer.alloc(0) };
  } catch (error) {
    if (error instanceof ResponseFramingError) return { kind: "error", reason: error.message };
    throw error;
  }
}

/** llhttp's headers as the proxy passes them on: hop-by-hop ones and those Connection names dropped, OWS trimmed. */
function endToEnd(headers: [string, string][]): [string, string][] {
  const named = new Set(headers.filter(([n]) => n.toLowerCase() === "connection").flatMap(([, v]) => v.toLowerCase().split(",").map((s) => s.trim())));
  return headers.filter(([n]) => !HOP_BY_HOP.has(n.toLowerCase()) && !named.has(n.toLowerCase())).map(([n, v]) => [n, v.replace(/^[ \t]+|[ \t]+$/g, "")]);
}

interface Tally {
  cases: number;
  bothFramed: number;
  bothRefused: number;
  oursStricter: number;
  wellFormed: number;
  ms: number;
}

function describeCase(seed: number, index: number, c: Case, segments: Buffer[]): string {
  return `seed ${seed} case ${index} method ${c.method}\nsegments ${JSON.stringify(segments.map((s) => s.toString("latin1")))}`;
}

function compare(seed: number, index: number, c: Case, segments: Buffer[], tally: Tally): void {
  const ours = oursParse(c.method, segments);
  const ref: ReferenceOutcome = referenceParse(c.method, segments, true);
  const where = () => describeCase(seed, index, c, segments);
  // Segmentation never changes our answer.
  const whole = oursParse(c.method, [Buffer.concat(segments)]);
  if (JSON.stringify(whole) !== JSON.stringify(ours)) throw new Error(`ours depends on segmentation: ${where()}\nwhole ${JSON.stringify(whole)}\nsplit ${JSON.stringify(ours)}`);
  if (c.wellFormed) {
    tally.wellFormed++;
    if (ours.kind !== "response") throw new Error(`ours refused a well-formed response (${JSON.stringify(ours)}): ${where()}`);
  }
  if (ours.kind !== "response") {
    if (ref.kind === "response") tally.oursStricter++;
    else tally.bothRefused++;
    return;
  }
  if (ref.kind !== "response") throw new Error(`ours framed what llhttp did not (${JSON.stringify(ref)}): ${where()}\nours ${JSON.stringify(ours)}`);
  tally.bothFramed++;
  const mine = {
    status: ours.head.status,
    statusText: ours.head.statusText,
    headers: ours.head.headers,
    body: ours.body.toString("latin1"),
    rest: ours.rest.toString("latin1"),
  };
  const theirs = {
    status: ref.status,
    statusText: ref.statusText,
    headers: endToEnd(ref.headers),
    body: ref.body.toString("latin1"),
    rest: ref.rest.toString("latin1"),
  };
  if (JSON.stringify(mine) !== JSON.stringify(theirs)) throw new Error(`ours and llhttp disagree: ${where()}\nours ${JSON.stringify(mine)}\nllhttp ${JSON.stringify(theirs)}`);
  // For HEAD llhttp decides keep-alive before it is told there is no body (undici overrides it the same way).
  if (c.method !== "HEAD" && ours.head.reusable && !ref.keepAlive) throw new Error(`ours would reuse a connection llhttp would close: ${where()}`);
}

function fuzz(seed: number): Tally {
  const g = new Gen(prng(seed));
  const tally: Tally = { cases: 0, bothFramed: 0, bothRefused: 0, oursStricter: 0, wellFormed: 0, ms: 0 };
  const started = performance.now();
  for (let i = 0; i < CASES && performance.now() - started < BUDGET_MS; i++) {
    const c = makeCase(g);
    const segments = split(g, Buffer.from(c.bytes, "latin1"));
    compare(seed, i, c, segments, tally);
    tally.cases++;
  }
  tally.ms = Math.round(performance.now() - started);
  return tally;
}

describe("the proxy's response parser against llhttp", () => {
  test("the reference itself frames a plain response, a chunked one, and refuses a bad chunk size", () => {
    const ok = referenceParse("GET", [Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiHTTP")], true);
    expect(ok).toMatchObject({ kind: "response", status: 200, statusText: "OK", keepAlive: true });
    if (ok.kind === "response") expect([ok.body.toString(), ok.rest.toString()]).toEqual(["hi", "HTTP"]);
    const chunked = referenceParse("GET", [Buffer.from("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n")], false);
    expect(chunked.kind === "response" && chunked.body.toString()).toBe("hi");
    expect(referenceParse("GET", [Buffer.from("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhi\r\n0\r\n\r\n")], true).kind).toBe("error");
  });

  test("the fixed seed: ours frames only what llhttp frames, and identically", () => {
    const tally = fuzz(FIXED_SEED);
    console.log(`upstream fuzz seed ${FIXED_SEED}: ${JSON.stringify(tally)}`);
    expect(tally.cases).toBeGreaterThan(500);
    expect(tally.bothFramed).toBeGreaterThan(tally.cases / 4);
    expect(tally.bothRefused).toBeGreaterThan(0);
  });

  test("a seed from UPSTREAM_FUZZ_SEED (else a random one, printed)", () => {
    const fromEnv = process.env.UPSTREAM_FUZZ_SEED;
    const seed = fromEnv ? Number(fromEnv) >>> 0 : Math.floor(Math.random() * 2 ** 32);
    const tally = fuzz(seed);
    console.log(`upstream fuzz seed ${seed} (rerun with UPSTREAM_FUZZ_SEED=${seed}): ${JSON.stringify(tally)}`);
    expect(tally.cases).toBeGreaterThan(500);
  });
});
