// drizzle-kit generates the session store's SQL migrations from schema.ts:
//   bunx drizzle-kit generate --config src/daemon/store/drizzle.config.ts
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./src/daemon/store/schema.ts",
  out: "./src/daemon/store/migrations",
});
