import { defineConfig } from "drizzle-kit";

// `bun run db:generate` also writes the PostgreSQL migration into migrations/postgres/ from the
// PostgreSQL twins of the tables (src/*/pg-table.ts), kept equal to table.ts by src/db/schema-parity.test.ts.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/*/pg-table.ts",
  out: "./migrations/postgres",
});
