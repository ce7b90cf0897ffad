// What a proxy adds to each SSE record, read from the wire instead of from a client's clock: tcpdump
// captures loopback while streams run, and each record's `"seq":"..."` is timed on the packet that brought
// it to the proxy (from the daemon) and on the packet that took it on (to the client). The difference is
// the proxy's own delay: no client's reading, parsing or scheduling is in it, which is what made two
// direct streams read by the same benchmark process differ by 1-2 ms at p99 on this host.
// Needs tcpdump (apt install tcpdump) and the right to capture (root or CAP_NET_RAW).
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface Capture {
  /** Stops tcpdump and returns each TCP flow's record arrivals: `src>dst` ports -> seq -> seconds. */
  stop(): Promise<Map<string, Map<string, number>>>;
}

/** Starts capturing loopback TCP on `ports`; a string says why it cannot (tcpdump missing, no permission). */
export async function startCapture(ports: number[], file: string): Promise<Capture | string> {
  if (!Bun.which("tcpdump")) return "tcpdump is not installed (apt install tcpdump)";
  const filter = `tcp and (${ports.map((p) => `port ${p}`).join(" or ")})`;
  const dump = Bun.spawn(["tcpdump", "-i", "lo", "-s", "0", "-U", "-n", "--time-stamp-precision=nano", "-w", file, filter], { stdout: "ignore", stderr: "pipe" });
  const reader = dump.stderr.getReader();
  let said = "";
  while (!said.includes("listening on")) {
    const { value, done } = await reader.read();
    if (done) return `tcpdump could not capture: ${said.trim()}`;
    said += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return {
    async stop() {
      // Let the last packets reach the file before the capture ends.
      await Bun.sleep(200);
      dump.kill("SIGINT");
      await dump.exited;
      return recordArrivals(readFileSync(file));
    },
  };
}

interface Segment {
  at: number;
  offset: number;
}

/** Parses a pcap (nanosecond timestamps, Ethernet framing on lo) into per-flow record arrival times. */
export function recordArrivals(pcap: Buffer): Map<string, Map<string, number>> {
  if (pcap.readUInt32LE(0) !== 0xa1b23c4d) throw new Error("expected a little-endian pcap with nanosecond timestamps");
  if (pcap.readUInt32LE(20) !== 1) throw new Error("expected Ethernet framing (capture on lo)");
  const flows = new Map<string, { data: Buffer[]; size: number; next: number | undefined; segments: Segment[] }>();
  for (let at = 24; at + 16 <= pcap.length; ) {
    const seconds = pcap.readUInt32LE(at) + pcap.readUInt32LE(at + 4) / 1e9;
    const length = pcap.readUInt32LE(at + 8);
    const frame = pcap.subarray(at + 16, at + 16 + length);
    at += 16 + length;
    if (frame.readUInt16BE(12) !== 0x0800) continue;
    const ip = frame.subarray(14);
    if (ip[9] !== 6) continue;
    const ipHeader = (ip[0]! & 0x0f) * 4;
    const tcp = ip.subarray(ipHeader, ip.readUInt16BE(2));
    const payload = tcp.subarray((tcp[12]! >> 4) * 4);
    if (payload.length === 0) continue;
    const key = `${tcp.readUInt16BE(0)}>${tcp.readUInt16BE(2)}`;
    const seq = tcp.readUInt32BE(4);
    let flow = flows.get(key);
    if (!flow) flows.set(key, (flow = { data: [], size: 0, next: undefined, segments: [] }));
    // Loopback loses nothing: a retransmitted segment is skipped, and a gap (not seen on lo) would leave the
    // rest of that flow unread.
    if (flow.next !== undefined && seq !== flow.next) continue;
    flow.segments.push({ at: seconds, offset: flow.size });
    flow.data.push(payload);
    flow.size += payload.length;
    flow.next = (seq + payload.length) >>> 0;
  }
  const out = new Map<string, Map<string, number>>();
  for (const [key, flow] of flows) {
    const text = Buffer.concat(flow.data).toString("latin1");
    const arrivals = new Map<string, number>();
    let s = 0;
    for (const match of text.matchAll(/"seq":"([^"]+)"/g)) {
      const end = match.index + match[0].length;
      // The segment that carried the end of the match: the record was whole only then.
      while (s + 1 < flow.segments.length && flow.segments[s + 1]!.offset < end) s++;
      if (!arrivals.has(match[1]!)) arrivals.set(match[1]!, flow.segments[s]!.at);
    }
    if (arrivals.size) out.set(key, arrivals);
  }
  return out;
}

/** Local TCP ports of the sockets process `pid` has open (from /proc: its fds and the socket table). */
export function localPorts(pid: number): Set<number> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (link.startsWith("socket:[")) inodes.add(link.slice(8, -1));
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && inodes.has(cols[9]!)) ports.add(Number.parseInt(cols[1]!.split(":")[1]!, 16));
    }
  }
  return ports;
}

/**
 * Per record, the proxy's delay: its arrival on the flow from the daemon to the proxy (the proxy's end of
 * which is one of `proxyPorts`) to its arrival on the flow from the proxy's listening port to a client.
 */
export function proxyDelays(flows: Map<string, Map<string, number>>, daemonPort: number, proxyPorts: Set<number>, listenPort: number): number[] {
  let inbound: Map<string, number> | undefined;
  let outbound: Map<string, number> | undefined;
  for (const [key, arrivals] of flows) {
    const [src, dst] = key.split(">").map(Number) as [number, number];
    if (src === daemonPort && proxyPorts.has(dst) && (!inbound || arrivals.size > inbound.size)) inbound = arrivals;
    if (src === listenPort && (!outbound || arrivals.size > outbound.size)) outbound = arrivals;
  }
  if (!inbound || !outbound) return [];
  const delays: number[] = [];
  for (const [seq, at] of outbound) {
    const from = inbound.get(seq);
    if (from !== undefined) delays.push((at - from) * 1000);
  }
  return delays;
}
