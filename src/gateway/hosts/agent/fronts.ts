// A host agent's connections to the gateway's fronts (docs/gateway-hosts.md, Joining a host): one
// MuxConnection per --join URL, dialed out with the host credential, redialed after a loss with capped
// exponential backoff and jitter, one log line per state change (connected, lost, retrying in Ns; never the
// token). Requests to "the gateway" go to the front that answered last and fail over to another front when a
// connection is lost before its answer; with none connected they fail with 503 `no_front_reachable`.
import { ProtocolError } from "../../../protocol/errors.ts";
import { presentedCertificate } from "../../../client/tls-pin.ts";
import { logEvent } from "../../auth/failure-counts.ts";
import type { Logger } from "../../context.ts";
import { HOST_CLOSE } from "../connect-route.ts";
import type { MuxConnection, MuxHandler } from "../mux/connection.ts";
import { MuxClosedError } from "../mux/errors.ts";
import { CONNECT_PATH, connectUrl, dial } from "../mux/dial.ts";
import { retryDelayMs } from "./backoff.ts";

export interface FrontsOptions {
  /** The fronts' base URLs (https://front:19870; http:// only to loopback). */
  urls: string[];
  /** The host credential (hst_...). */
  token: string;
  /** This host's name: the one the credential is scoped to. */
  hostName: string;
  /** SHA-256 fingerprints (uppercase hex with colons) of self-signed front certificates to accept; empty: system CAs only. */
  fingerprints: string[];
  /** Serves the fronts' requests on every connection (the host API). */
  handler: MuxHandler;
  /** Called after each (re)connection (the agent re-announces its live daemons then). */
  onConnected?: (connection: MuxConnection, url: string) => void;
  logger: Logger;
}

/** `SHA256:AB:CD:...`, `AB:CD:...` or 64 hex digits -> uppercase hex with colons; null when it is none of these. */
export function normalizeFingerprint(text: string): string | null {
  const hex = text.trim().replace(/^sha-?256:/i, "").replace(/:/g, "").toUpperCase();
  return /^[0-9A-F]{64}$/.test(hex) ? hex.match(/../g)!.join(":") : null;
}

/** Why a connection attempt or a connection ended, in words an operator acts on (never the token). */
function explainClose(code: number, reason: string, hostName: string): string {
  if (code === HOST_CLOSE.WRONG_HOST) return `the front refused host name ${hostName} (${code}: ${reason}); --name must be the host the token was created for (agent gateway host-token create --host ${hostName})`;
  if (code === HOST_CLOSE.REVOKED) return `the host token was revoked (${code}); create a new one with agent gateway host-token create --host ${hostName}`;
  if (code === HOST_CLOSE.REPLACED) return `the front took a newer connection of host ${hostName} (${code}): is another host agent running with --name ${hostName}?`;
  return `${code}${reason ? `: ${reason}` : ""}`;
}

function explainDialError(error: unknown, hostName: string): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/\b401\b/.test(message)) return `${message} (the front refused the host token: unknown, revoked, or not an hst_ token for ${hostName})`;
  return message;
}

/** A connection that lasted this long was a working one: the next loss starts the backoff from its first step again. */
export const STABLE_CONNECTION_MS = 10_000;

class FrontLink {
  connection: MuxConnection | undefined;
  /** When this front last answered a request of ours (or connected): the preferred front is the latest. */
  lastAnswer = 0;
  private attempt = 0;
  private wake: (() => void) | undefined;
  private stopped = false;
  readonly origin: string;

  constructor(
    readonly url: string,
    private readonly options: FrontsOptions,
  ) {
    this.origin = new URL(url).origin;
  }

  run(): void {
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
    this.connection?.close(1001, "the host agent stops");
  }

  private log(level: "info" | "warn", event: string, fields: Record<string, string | number | boolean | null>): void {
    logEvent(this.options.logger, level, event, { front: this.origin, ...fields });
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let why: string;
      try {
        const connection = await this.connect();
        if (this.stopped) {
          connection.close(1001, "the host agent stops");
          return;
        }
        this.connection = connection;
        const since = performance.now();
        this.lastAnswer = since;
        this.log("info", "host.front_connected", { front_id: connection.peer.name, protocol: connection.protocol });
        this.options.onConnected?.(connection, this.url);
        const { code, reason } = await connection.closed;
        this.connection = undefined;
        // A front that accepts and then closes at once (a wrong --name, a replaced connection) is not dialed ever faster.
        if (performance.now() - since >= STABLE_CONNECTION_MS) this.attempt = 0;
        if (this.stopped) return;
        why = explainClose(code, reason, this.options.hostName);
        this.log("warn", "host.front_lost", { code, reason: why });
      } catch (error) {
        why = explainDialError(error, this.options.hostName);
      }
      if (this.stopped) return;
      const delay = retryDelayMs(this.attempt++);
      this.log("warn", "host.front_retrying", { in_s: Math.round(delay / 100) / 10, error: why });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  private async connect(): Promise<MuxConnection> {
    const target = `${this.url.replace(/\/+$/, "")}${CONNECT_PATH}`;
    const url = connectUrl(target);
    let tls: { ca: string; fingerprint: string } | undefined;
    if (url.protocol === "wss:" && this.options.fingerprints.length > 0) {
      // A pinned front: its certificate becomes the only CA, and dial() compares the exact fingerprint too.
      const presented = await presentedCertificate(url.hostname.replace(/^\[|\]$/g, ""), Number(url.port || 443));
      if (!this.options.fingerprints.includes(presented.fingerprint)) {
        throw new Error(`the certificate of ${this.origin} (SHA-256 ${presented.fingerprint}) is not a pinned one (--tls-fingerprint); refusing to send the host token`);
      }
      tls = { ca: presented.pem, fingerprint: presented.fingerprint };
    }
    const connection = await dial(target, {
      token: this.options.token,
      hello: { side: "host", name: this.options.hostName },
      tls,
      // The front got a 502 without the reason; the host's log has it.
      onHandlerError: (error, request) => this.log("warn", "host.handler_failed", { method: request.method, path: new URL(request.url).pathname, error: error instanceof Error ? error.message : String(error) }),
    });
    connection.serve(this.options.handler);
    return connection;
  }
}

export class Fronts {
  private readonly links: FrontLink[];

  constructor(private readonly options: FrontsOptions) {
    this.links = options.urls.map((url) => new FrontLink(url, options));
  }

  start(): void {
    for (const link of this.links) link.run();
  }

  stop(): void {
    for (const link of this.links) link.stop();
  }

  /** The connected fronts, the one that answered last first. */
  connected(): MuxConnection[] {
    return this.links
      .filter((l) => l.connection && !l.connection.isClosed)
      .sort((a, b) => b.lastAnswer - a.lastAnswer)
      .map((l) => l.connection!);
  }

  /**
   * Sends a request (made fresh for each try: a body is read once) to the front that answered last; a
   * connection lost before the answer moves it to the next. None connected: 503 `no_front_reachable`.
   */
  async fetch(make: () => Request): Promise<Response> {
    let lost: string | undefined;
    for (const link of [...this.links].sort((a, b) => b.lastAnswer - a.lastAnswer)) {
      const connection = link.connection;
      if (!connection || connection.isClosed) continue;
      try {
        const response = await connection.fetch(make());
        link.lastAnswer = performance.now();
        return response;
      } catch (error) {
        if (!(error instanceof MuxClosedError)) throw error;
        lost = error.message;
      }
    }
    throw new ProtocolError("no_front_reachable", 503, `no gateway front reachable from host ${this.options.hostName} (joined: ${this.links.map((l) => l.origin).join(", ")})${lost ? `; the last one was lost: ${lost}` : ""}`);
  }
}
