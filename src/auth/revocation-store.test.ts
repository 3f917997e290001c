import { afterAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { run, runTx } from "../db/conn.ts";
import { exec, rows } from "../db/sql.ts";
import { tempDatabase } from "../../test/support/database.ts";
import { onPostgres } from "../../test/support/postgres.ts";
import { isTokenRevoked, purgeExpiredRevocations, revokeToken } from "./revocation-store.ts";
import { revokedTokens } from "./table.ts";

const temp = tempDatabase("revocations");
afterAll(() => temp.remove());

describe("token revocations", async () => {
  test("a revoked jti is found; another is not; revoking again keeps the later expiry", async () => {
    expect(await revokeToken(temp.conn, "jti-1", 5_000, 1_000)).toBe(true);
    expect(await isTokenRevoked(temp.conn, "jti-1")).toBe(true);
    expect(await isTokenRevoked(temp.conn, "jti-2")).toBe(false);
    expect(await revokeToken(temp.conn, "jti-1", 3_000, 2_000)).toBe(false);
    expect(await revokeToken(temp.conn, "jti-1", 9_000, 2_000)).toBe(false);
    expect(await revokeToken(temp.conn, "jti-1", 4_000, 3_000)).toBe(false);
    expect(await run(temp.conn, (q) => q.select().from(revokedTokens))).toEqual([{ jti: "jti-1", expiresAt: 9_000, revokedAt: 1_000 }]);
  });

  test("the sweep drops a revocation only once its token has expired", async () => {
    expect(await purgeExpiredRevocations(temp.conn, 8_999)).toBe(0);
    expect(await purgeExpiredRevocations(temp.conn, 9_001)).toBe(1);
    expect(await isTokenRevoked(temp.conn, "jti-1")).toBe(false);
  });

  // SQLite's own query planner, asked in its own words.
  test.skipIf(onPostgres)("the lookup is by primary key", async () => {
    const plan = temp.db.$client.query("EXPLAIN QUERY PLAN SELECT jti FROM revoked_tokens WHERE jti = ?").all("x") as { detail: string }[];
    expect(plan.map((row) => row.detail).join(" ")).toMatch(/USING (PRIMARY KEY|INDEX sqlite_autoindex_revoked_tokens_1|COVERING INDEX sqlite_autoindex_revoked_tokens_1)/);
  });

  // PostgreSQL's twin: with sequential scans ruled out, the lookup is an index scan of the primary
  // key (a table this small would otherwise be scanned whole, which says nothing about its index).
  test.skipIf(!onPostgres)("the lookup is by primary key (PostgreSQL)", async () => {
    const plan = await runTx(temp.conn, async (q) => {
      await exec(q, sql`SET LOCAL enable_seqscan = off`);
      return rows<{ "QUERY PLAN": string }>(q, sql`EXPLAIN SELECT jti FROM revoked_tokens WHERE jti = ${"x"}`);
    });
    expect(plan.map((row) => row["QUERY PLAN"]).join(" ")).toMatch(/Index (Only )?Scan using revoked_tokens_pkey/);
  });
});
