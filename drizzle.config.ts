import { defineConfig } from "drizzle-kit";

// `bun run db:generate` writes a new SQL migration into migrations/ from the tables in src/*/table.ts.
export default defineConfig({
  dialect: "sqlite",
  // Each domain folder declares its own tables in table.ts.
  schema: "./src/*/table.ts",
  out: "./migrations",
});
