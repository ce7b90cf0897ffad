// Two gateways on one PostgreSQL database, as two replicas behind a load balancer: the same pepper file,
// each with its own FakeClock (both start at the same instant; `advance` moves both).
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { freshPgDatabase } from "../../helpers/postgres.ts";
import { startTestGateway, tempDir, type TestGateway } from "../helpers.ts";

export interface Replicas {
  a: TestGateway;
  b: TestGateway;
  both: [TestGateway, TestGateway];
  /** Moves both replicas' clocks. */
  advance(ms: number): void;
  /** Starts one more replica (stopped with the others); its clock starts at the same instant as theirs did. */
  another(): Promise<TestGateway>;
  stop(): Promise<void>;
}

/** `auth` is YAML inside the `auth:` block (two-space keys), as startTestGateway takes it. */
export async function startReplicas(auth = "", extra = ""): Promise<Replicas> {
  const database = await freshPgDatabase();
  const pepperFile = join(tempDir("gw-pepper-"), "pepper");
  writeFileSync(pepperFile, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  const options = { database, auth: `    pepper_file: ${pepperFile}\n${auth}` };
  const a = await startTestGateway(extra, options);
  const b = await startTestGateway(extra, options);
  const more: TestGateway[] = [];
  return {
    a,
    b,
    both: [a, b],
    advance: (ms) => {
      a.clock.advance(ms);
      b.clock.advance(ms);
    },
    another: async () => {
      const gw = await startTestGateway(extra, options);
      more.push(gw);
      return gw;
    },
    stop: async () => {
      for (const gw of more) await gw.stop();
      await a.stop();
      await b.stop();
    },
  };
}
