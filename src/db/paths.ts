import { join } from "node:path";

export function databasePath(dataDir: string): string {
  return join(dataDir, "verbatim.db");
}
