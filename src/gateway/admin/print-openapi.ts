// `agent print gateway-openapi`: the same document the server serves at /api/v1/openapi.json, rendered
// from the route schemas with an in-memory database (no data dir, no server).
import { EXIT, type Io, type ParsedArgs } from "../../util/cli-command.ts";
import { formatDocument } from "../../util/format-document.ts";
import { defaultGatewayConfig } from "../config/load.ts";
import { createGatewayContext } from "../context.ts";
import { renderOpenApi } from "../server/app.ts";

export async function gatewayOpenApiDocument(): Promise<unknown> {
  const ctx = await createGatewayContext({ config: defaultGatewayConfig(), env: {}, dataDir: ":memory:" });
  try {
    return await renderOpenApi(ctx);
  } finally {
    await ctx.db.close();
  }
}

export async function printGatewayOpenApi(args: ParsedArgs, io: Io): Promise<number> {
  io.out(formatDocument(await gatewayOpenApiDocument(), args.flags.format as string | undefined));
  return EXIT.ok;
}
