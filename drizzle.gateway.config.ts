// drizzle-kit generates the gateway's SQL migrations from src/gateway/db/schema.ts:
//   bunx drizzle-kit generate --config drizzle.gateway.config.ts
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./src/gateway/db/schema.ts",
  out: "./src/gateway/db/migrations",
});
