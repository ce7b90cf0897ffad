// Serves the ACP agent over this process's stdin/stdout (newline-delimited JSON-RPC). stdout carries
// the protocol only: every diagnostic goes to stderr. Ends when the editor closes stdin.
import { ndJsonStream, type AgentApp } from "@agentclientprotocol/sdk";
import { Readable, Writable } from "node:stream";

export async function serveStdio(app: AgentApp, stdin: Readable = process.stdin, stdout: Writable = process.stdout): Promise<void> {
  const stream = ndJsonStream(Writable.toWeb(stdout) as WritableStream<Uint8Array>, Readable.toWeb(stdin) as unknown as ReadableStream<Uint8Array>);
  const connection = app.connect(stream);
  await connection.closed;
}
