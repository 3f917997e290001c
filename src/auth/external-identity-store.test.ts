import { afterAll, describe, expect, test } from "bun:test";
import { run } from "../db/conn.ts";
import { tempDatabase } from "../../test/support/database.ts";
import { userForIdpToken } from "./external-identity-store.ts";
import { eq } from "drizzle-orm";
import { externalIdentities, users } from "./table.ts";
import { addUser } from "./user-store.ts";

const temp = tempDatabase("idp-users");
afterAll(() => temp.remove());

const ana = await addUser(temp.conn, { email: "ana@firm.example", plan: "free" });
const ben = await addUser(temp.conn, { email: "ben@firm.example", plan: "free" });
/** Every stored link, as the table holds it. */
const links = () => run(temp.conn, (q) => q.select().from(externalIdentities));
const ISS = "https://idp.firm.example";

describe("userForIdpToken", async () => {
  test("an unverified email names no one and links nothing", async () => {
    const result = await userForIdpToken(temp.conn, { issuer: ISS, subject: "s-unverified", email: "ana@firm.example", emailVerified: false }, 1);
    expect(result).toEqual({ refused: expect.stringContaining("not verified") });
    expect(await links()).toHaveLength(0);
  });

  test("no link and no email: refused", async () => {
    expect(await userForIdpToken(temp.conn, { issuer: ISS, subject: "s-none", email: undefined, emailVerified: false }, 1)).toEqual({
      refused: expect.stringContaining("not linked"),
    });
  });

  test("a verified email maps and links; later the link wins over any email", async () => {
    expect(await userForIdpToken(temp.conn, { issuer: ISS, subject: "s-ana", email: "ANA@firm.example", emailVerified: true }, 5)).toEqual({ user: ana });
    expect(await links()).toEqual([{ issuer: ISS, subject: "s-ana", userId: ana.id, createdAt: 5 }]);
    expect(await userForIdpToken(temp.conn, { issuer: ISS, subject: "s-ana", email: "ben@firm.example", emailVerified: true }, 6)).toEqual({ user: ana });
    expect(await userForIdpToken(temp.conn, { issuer: ISS, subject: "s-ana", email: undefined, emailVerified: false }, 7)).toEqual({ user: ana });
  });

  test("the link is per issuer: the same sub at another issuer is a different person", async () => {
    expect(await userForIdpToken(temp.conn, { issuer: "https://other.example", subject: "s-ana", email: undefined, emailVerified: false }, 8)).toEqual({
      refused: expect.stringContaining("not linked"),
    });
    expect(await userForIdpToken(temp.conn, { issuer: "https://other.example", subject: "s-ana", email: "ben@firm.example", emailVerified: true }, 9)).toEqual({
      user: ben,
    });
  });

  test("a verified email of no user is refused and links nothing", async () => {
    const before = (await links()).length;
    expect(await userForIdpToken(temp.conn, { issuer: ISS, subject: "s-ghost", email: "ghost@firm.example", emailVerified: true }, 10)).toEqual({
      refused: expect.stringContaining("not a user"),
    });
    expect(await links()).toHaveLength(before);
  });

  test("a disabled account is refused, linked or by email, until it is enabled again", async () => {
    const cid = await addUser(temp.conn, { email: "cid@firm.example", plan: "free" });
    expect(await userForIdpToken(temp.conn, { issuer: ISS, subject: "s-cid", email: "cid@firm.example", emailVerified: true }, 11)).toEqual({ user: cid });
    await run(temp.conn, (q) => q.update(users).set({ disabledAt: 12 }).where(eq(users.id, cid.id)));
    expect(await userForIdpToken(temp.conn, { issuer: ISS, subject: "s-cid", email: undefined, emailVerified: false }, 13)).toEqual({ refused: expect.stringContaining("disabled") });
    expect(await userForIdpToken(temp.conn, { issuer: ISS, subject: "s-cid-2", email: "cid@firm.example", emailVerified: true }, 13)).toEqual({ refused: expect.stringContaining("disabled") });
    await run(temp.conn, (q) => q.update(users).set({ disabledAt: null }).where(eq(users.id, cid.id)));
    expect(await userForIdpToken(temp.conn, { issuer: ISS, subject: "s-cid", email: undefined, emailVerified: false }, 14)).toEqual({ user: cid });
  });
});
