import { afterAll, describe, expect, test } from "bun:test";
import { tempDatabase } from "../../test/support/database.ts";
import { isTokenRevoked, purgeExpiredRevocations, revokeToken } from "./revocation-store.ts";
import { revokedTokens } from "./table.ts";

const temp = tempDatabase("revocations");
const db = temp.db;
afterAll(() => temp.remove());

describe("token revocations", async () => {
  test("a revoked jti is found; another is not; revoking again keeps the later expiry", async () => {
    expect(await revokeToken(temp.conn, "jti-1", 5_000, 1_000)).toBe(true);
    expect(await isTokenRevoked(temp.conn, "jti-1")).toBe(true);
    expect(await isTokenRevoked(temp.conn, "jti-2")).toBe(false);
    expect(await revokeToken(temp.conn, "jti-1", 3_000, 2_000)).toBe(false);
    expect(await revokeToken(temp.conn, "jti-1", 9_000, 2_000)).toBe(false);
    expect(await revokeToken(temp.conn, "jti-1", 4_000, 3_000)).toBe(false);
    expect(await db.select().from(revokedTokens)).toEqual([{ jti: "jti-1", expiresAt: 9_000, revokedAt: 1_000 }]);
  });

  test("the sweep drops a revocation only once its token has expired", async () => {
    expect(await purgeExpiredRevocations(temp.conn, 8_999)).toBe(0);
    expect(await purgeExpiredRevocations(temp.conn, 9_001)).toBe(1);
    expect(await isTokenRevoked(temp.conn, "jti-1")).toBe(false);
  });

  test("the lookup is by primary key", async () => {
    const plan = db.$client.query("EXPLAIN QUERY PLAN SELECT jti FROM revoked_tokens WHERE jti = ?").all("x") as { detail: string }[];
    expect(plan.map((row) => row.detail).join(" ")).toMatch(/USING (PRIMARY KEY|INDEX sqlite_autoindex_revoked_tokens_1|COVERING INDEX sqlite_autoindex_revoked_tokens_1)/);
  });
});
