// The fake a matrix cell runs against: the vendor's strict fake (test/fakes/strict-fake.ts: its request
// rules, its error bodies) behind the vendor's own path layout (the catalog URL's path on 127.0.0.1),
// answering the cell's script and capturing every request.
import type { Server } from "bun";
import type { CapturedRequest, FakeStep } from "../../fakes/provider-fake.ts";
import { startStrictFake } from "../../fakes/strict-fake.ts";
import type { TurnSpec } from "../../fakes/turn-spec.ts";
import { PROTOCOL_INFO } from "../../../src/providers/protocols.ts";
import type { MatrixCell } from "./cells.ts";

export interface VendorFake {
  /** Origin of the fake (http://127.0.0.1:PORT). */
  origin: string;
  /** Requests in arrival order, with the path the client used. */
  requests: CapturedRequest[];
  /** Rules the requests broke (each answered with the vendor's error). */
  violations: string[];
  stop(): Promise<void>;
}

const ENDPOINT = { a_messages: "/v1/messages", b_chat_completions: "/chat/completions", b_responses: "/responses" } as const;

/**
 * The vendor's strict fake behind a front that serves the vendor's path: the catalog URL's path plus the
 * dialect's endpoint (the strict fake itself serves the dialect's standard path). A request to any other
 * path is a violation.
 */
export function startVendorFake(cell: MatrixCell, turns: TurnSpec[] | ((firstBody: unknown) => TurnSpec[])): VendorFake {
  const dialect = PROTOCOL_INFO[cell.provider.protocol].baseDialect;
  // A script that depends on the first request (the tools it offers) is filled in when that request arrives;
  // the fake reads each step when its request comes, so it sees the filled-in steps.
  const steps: FakeStep[] = [];
  let planned = typeof turns !== "function";
  const plan = (body: unknown) => steps.push(...(typeof turns === "function" ? turns(body) : turns).map((turn) => ({ kind: "turn" as const, turn })));
  if (planned) plan(null);
  const inner = startStrictFake(cell.provider.name, steps);
  const innerPath = { a_messages: "/v1/messages", b_chat_completions: "/v1/chat/completions", b_responses: "/v1/responses" }[dialect];
  const requests: CapturedRequest[] = [];
  const violations: string[] = [];
  const expected = `${vendorPath(cell)}${ENDPOINT[dialect]}`;
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const text = await req.text();
      const headers: Record<string, string> = {};
      req.headers.forEach((v, k) => (headers[k] = v));
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        violations.push(`${req.method} ${path}: body is not JSON`);
      }
      requests.push({ method: req.method, path, headers, body });
      if (req.method !== "POST" || path !== expected) {
        violations.push(`unexpected ${req.method} ${path} (the vendor serves ${expected})`);
        return Response.json({ error: { type: "not_found_error", message: `no route ${path}` } }, { status: 404 });
      }
      if (!planned) {
        planned = true;
        plan(body);
      }
      const forwarded = new Headers(req.headers);
      forwarded.delete("host");
      const res = await fetch(`${inner.url}${innerPath}`, { method: "POST", headers: forwarded, body: text });
      return new Response(res.body, { status: res.status, headers: res.headers });
    },
  });
  return {
    origin: `http://127.0.0.1:${server.port}`,
    requests,
    get violations() {
      return [...violations, ...inner.violations];
    },
    async stop() {
      await server.stop(true);
      await inner.stop();
    },
  };
}

/** The path of the vendor's base URL (catalog URL; the documented resource form when each account has its own). */
export function vendorPath(cell: MatrixCell): string {
  const entry = cell.provider;
  if (entry.url) return new URL(entry.url).pathname.replace(/\/+$/, "");
  if (entry.name === "azure") return "/openai/v1";
  if (entry.name === "azure-anthropic") return "/anthropic";
  throw new Error(`catalog provider '${entry.name}' has no url and the matrix knows no resource form for it`);
}
