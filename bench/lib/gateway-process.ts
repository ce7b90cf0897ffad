// Starts `agent gateway serve` from source for a benchmark and waits for its "listening on" banner.
// BENCH_BUN_FLAGS (space-separated) go to bun before the script, e.g. "--cpu-prof-md --cpu-prof-dir=/tmp/prof".
import type { Subprocess } from "bun";

export async function startGateway(main: string, config: string, env: Record<string, string | undefined>): Promise<{ server: Subprocess; base: string }> {
  const server = Bun.spawn(["bun", ...(process.env.BENCH_BUN_FLAGS ? process.env.BENCH_BUN_FLAGS.split(" ") : []), main, "gateway", "serve", "--config", config], { env, stdout: "pipe", stderr: "inherit" });
  const reader = server.stdout.getReader();
  let banner = "";
  while (!/listening on (\S+)/.test(banner)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`gateway exited: ${banner}`);
    banner += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { server, base: /listening on (\S+)/.exec(banner)![1]! };
}
