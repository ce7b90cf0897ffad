// drizzle-kit generates the gateway's PostgreSQL migrations from src/gateway/db/schema-pg.ts:
//   bunx drizzle-kit generate --config drizzle.gateway-pg.config.ts
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./src/gateway/db/schema-pg.ts",
  out: "./src/gateway/db/migrations-pg",
});
