// HELLO: the first frame each side sends, naming who it is and the host protocol versions it speaks. The
// connection runs at the highest version both speak, min(max_a, max_b), when it lies within both ranges; a
// front keeps serving every version from its min_protocol up, so an older host works against a newer front.
import { MuxProtocolError } from "./frames.ts";

/** The host protocol versions this build speaks. */
export const HOST_PROTOCOL = { min: 1, max: 1 } as const;

export type MuxSide = "host" | "front";

export interface HelloInfo {
  side: MuxSide;
  /** The host's host_name, or the front's id (its host_name). */
  name: string;
  /** The highest protocol version spoken. */
  protocol: number;
  min_protocol: number;
  agent_version: string;
}

export function helloPayload(hello: HelloInfo): Record<string, unknown> {
  const { side, name, protocol, min_protocol, agent_version } = hello;
  return { side, protocol, min_protocol, agent_version, ...(side === "host" ? { host_name: name } : { front_id: name }) };
}

export function parseHello(value: Record<string, unknown>): HelloInfo {
  const { side, protocol, min_protocol, agent_version } = value;
  if (side !== "host" && side !== "front") throw new MuxProtocolError(`HELLO side must be "host" or "front", got ${JSON.stringify(side)}`);
  const name = side === "host" ? value.host_name : value.front_id;
  const field = side === "host" ? "host_name" : "front_id";
  if (typeof name !== "string" || name.length === 0 || name.length > 255) throw new MuxProtocolError(`HELLO ${field} must be a string of 1 to 255 characters`);
  for (const [key, v] of [["protocol", protocol], ["min_protocol", min_protocol]] as const) {
    if (!Number.isInteger(v) || (v as number) < 1) throw new MuxProtocolError(`HELLO ${key} must be a positive integer, got ${JSON.stringify(v)}`);
  }
  if ((min_protocol as number) > (protocol as number)) throw new MuxProtocolError(`HELLO min_protocol ${min_protocol} is above protocol ${protocol}`);
  if (typeof agent_version !== "string" || agent_version.length > 100) throw new MuxProtocolError("HELLO agent_version must be a string of at most 100 characters");
  return { side, name, protocol: protocol as number, min_protocol: min_protocol as number, agent_version };
}

export function rangeText(hello: HelloInfo): string {
  return hello.min_protocol === hello.protocol ? `${hello.protocol}` : `${hello.min_protocol}-${hello.protocol}`;
}

/**
 * The version both run at, or why not: `error` names both ends and ranges, `reason` is the short form sent
 * as the close reason (at most 123 bytes), which still names both ranges.
 */
export function negotiate(mine: HelloInfo, peer: HelloInfo): { protocol: number } | { error: string; reason: string } {
  if (mine.side === peer.side) return { error: `both ends are a ${mine.side}: a host connects only to a front`, reason: `both ends are a ${mine.side}` };
  const protocol = Math.min(mine.protocol, peer.protocol);
  if (protocol >= mine.min_protocol && protocol >= peer.min_protocol) return { protocol };
  const [host, front] = mine.side === "host" ? [mine, peer] : [peer, mine];
  return {
    error: `no common host protocol version: the host ${host.name} speaks ${rangeText(host)}, the front ${front.name} speaks ${rangeText(front)}`,
    reason: `no common host protocol version: host ${rangeText(host)}, front ${rangeText(front)}`,
  };
}
