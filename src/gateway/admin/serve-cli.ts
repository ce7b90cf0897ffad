// `agent gateway serve`: starts the server in the foreground and stops it gracefully on SIGTERM/SIGINT.
import { jsonLineLogger } from "./json-log.ts";
import { CliError, EXIT, type Io, type ParsedArgs } from "../../util/cli-command.ts";
import { processTracer } from "../../telemetry/start.ts";
import { PepperError } from "../auth/pepper.ts";
import { TlsError } from "../net/tls.ts";
import { pamServiceProblem } from "../auth/pam.ts";
import { startGateway } from "../server/serve.ts";
import { loadConfigFor } from "./admin-context.ts";
import { displayUrl } from "../db/open-pg.ts";

export async function runServe(args: ParsedArgs, io: Io): Promise<number> {
  const config = loadConfigFor(args, io, true);
  const logger = jsonLineLogger(io);
  // Trace export follows the telemetry block of the global app config (the gateway config has none).
  const tracer = await processTracer("gateway", io.env, io.cwd, logger.warn);
  let gateway;
  try {
    gateway = await startGateway({ config, env: io.env, logger, tracer });
  } catch (error) {
    if (error instanceof TlsError || error instanceof PepperError) throw new CliError(error.message);
    throw new CliError(`cannot start the gateway: ${(error as Error).message}`);
  }
  const { ctx, tls, url } = gateway;
  io.out(`agent gateway "${ctx.config.display_name}" listening on ${url}\n`);
  if (tls) {
    const how = {
      configured: "from tls.cert_file",
      "self-signed-existing": "self-signed, reused",
      "self-signed-generated": "self-signed, generated now",
      shared: "self-signed, the replicas' shared identity",
      "shared-stored": "self-signed, stored now as the replicas' shared identity",
    }[tls.source];
    io.out(`TLS certificate (${how}): ${tls.certFile}\nSHA-256 fingerprint: ${tls.fingerprint}\n`);
    // Loud on purpose: the server still starts (the operator may be mid-migration), but not quietly.
    if (tls.keyWarning) io.err(`\n*** WARNING: ${tls.keyWarning} ***\n\n`);
  } else {
    io.out("TLS: off (plaintext on loopback; set tls.cert_file/tls.key_file or listen on a non-loopback address to enable it)\n");
  }
  const database = ctx.database.engine === "postgresql" ? displayUrl(ctx.config.database.url!) : ctx.dataDir;
  io.out(`database: ${ctx.database.engine === "postgresql" ? `${database} (PostgreSQL ${ctx.database.version}; data dir ${ctx.dataDir})` : database}${ctx.migrated ? " (migrated at startup)" : ""}\n`);
  if (gateway.pamNote) io.out(`PAM: unavailable (${gateway.pamNote})\n`);
  else if (ctx.pam) {
    // PAM is offered: a service file it needs that is missing would only show as 503s at login.
    const services = new Set([ctx.config.auth.pam.service, ...(await ctx.principals.list()).flatMap((p) => (p.pam ? [p.pam.service] : []))]);
    for (const service of services) {
      const problem = pamServiceProblem(service);
      if (!problem) continue;
      io.err(`warning: PAM: ${problem}\n`);
      logger.event!("warn", "auth.pam_misconfigured", { service, problem });
    }
  }
  logger.event!("info", "gateway.started", { url, tls: tls !== null, data_dir: ctx.dataDir, database, host_name: ctx.config.host_name });
  if ((await ctx.principals.list()).length === 0) io.out("No principals yet: create one with `agent gateway principal create <username>` and `agent gateway principal set-password <username>`.\n");

  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.off("SIGTERM", onTerm);
      process.off("SIGINT", onInt);
      io.err(`${signal}: shutting down\n`);
      ctx.authFailures.close();
      gateway.stop().then(resolve, resolve);
    };
    const onTerm = () => stop("SIGTERM");
    const onInt = () => stop("SIGINT");
    process.on("SIGTERM", onTerm);
    process.on("SIGINT", onInt);
  });
  await tracer.shutdown();
  io.err("gateway stopped\n");
  return EXIT.ok;
}
