// The gateway URL given to launched daemons: they run on this machine, so a wildcard listen address is
// reached through loopback.
export function loopbackUrl(address: string, port: number, tls: boolean): string {
  const host = address === "0.0.0.0" ? "127.0.0.1" : address === "::" ? "[::1]" : address.includes(":") ? `[${address}]` : address;
  return `${tls ? "https" : "http"}://${host}:${port}`;
}
