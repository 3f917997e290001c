// The administration use cases against a real store (both dialects): only an active admin may call
// them (a non-admin's call is not found), at least one active admin is always kept, disabling ends
// sessions and refuses the user's keys until enabled, a sign-in link works once, the firm's usage
// per account and month adds up the ledger, and each change is one audit entry under its account.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { testActor } from "../../test/support/actor.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import type { AuditEntry } from "../audit/types.ts";
import { authApp } from "../auth/app.ts";
import { createApiKey, createApiKeyLookup } from "../auth/api-key-store.ts";
import { addUser } from "../auth/user-store.ts";
import { createWebSession, findWebSession } from "../auth/web-session-store.ts";
import { runTx } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import { usageMeter } from "../usage/meter-store.ts";
import { DEFAULT_BILLING, type BillingSettings } from "../usage/settings.ts";
import { AdminRefusal, adminApp, LastAdmin, type AdminCaller } from "./app.ts";

const NOV = Date.parse("2026-11-10T12:00:00Z");
const billing: BillingSettings = { ...DEFAULT_BILLING, rates: { transcriptionPerHour: 360, reportPerMillionTokens: 1_000_000, documentPerMillionTokens: 1_000_000 } };
let database: TempDatabase;
let recorded: AuditEntry[];
let cacheEmptied: number;
let now: number;
let adminId: string;
let userId: string;

const app = () =>
  adminApp({
    conn: database.conn,
    clock: { now: () => now },
    audit: { record: (entry) => void recorded.push(entry), flush: async () => {} },
    publicUrl: () => "https://verbatim.firm.example/",
    onCredentialsChanged: () => void cacheEmptied++,
  });
const as = (id: string): AdminCaller => ({ actor: testActor(id, "webapp") });

beforeEach(async () => {
  database = tempDatabase("admin-app");
  recorded = [];
  cacheEmptied = 0;
  now = NOV;
  adminId = (await addUser(database.conn, { email: "boss@firm.example", plan: "pro", role: "admin" })).id;
  userId = (await addUser(database.conn, { email: "staff@firm.example", plan: "free" })).id;
});
afterEach(() => database.remove());

test("a caller who is not an active admin is told the console does not exist, and nothing changes", async () => {
  const notAdmin = as(userId);
  for (const call of [
    () => app().users(notAdmin),
    () => app().createUser(notAdmin, { email: "x@firm.example", plan: "free", link: true }),
    () => app().disable(notAdmin, adminId),
    () => app().setRole(notAdmin, userId, "admin"),
    () => app().setPlan(notAdmin, userId, "pro"),
    () => app().usage(notAdmin),
    () => app().audit(notAdmin, {}, { limit: 10 }),
  ]) {
    const error = await call().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(404);
  }
  expect(await app().isAdmin(testActor(userId))).toBe(false);
  expect((await app().users(as(adminId))).map((u) => [u.email, u.role, u.plan])).toEqual([
    ["boss@firm.example", "admin", "pro"],
    ["staff@firm.example", "user", "free"],
  ]);
  expect(recorded).toEqual([]);
  // A disabled admin is no admin.
  const second = (await addUser(database.conn, { email: "deputy@firm.example", plan: "free", role: "admin" })).id;
  await app().disable(as(adminId), second);
  expect(await app().isAdmin(testActor(second))).toBe(false);
});

test("the last active admin can be neither demoted nor disabled; with another admin, one can", async () => {
  await expect(app().setRole(as(adminId), adminId, "user")).rejects.toBeInstanceOf(LastAdmin);
  await expect(app().disable(as(adminId), adminId)).rejects.toBeInstanceOf(LastAdmin);
  await expect(app().assertDeletable({ cli: { operator: null } }, adminId)).rejects.toBeInstanceOf(LastAdmin);
  await app().setRole(as(adminId), userId, "admin");
  await app().setRole(as(userId), adminId, "user");
  expect(await app().isAdmin(testActor(adminId))).toBe(false);
  await expect(app().setRole(as(userId), userId, "user")).rejects.toBeInstanceOf(LastAdmin);
  expect(recorded.map((e) => [e.action, e.accountId, e.actorUserId, e.detail?.role])).toEqual([
    ["user.role_changed", userId, adminId, "admin"],
    ["user.role_changed", adminId, userId, "user"],
  ]);
});

test("disable ends the user's sessions and refuses their keys; enable brings the keys back; both empty the key cache", async () => {
  const { key } = await createApiKey(database.conn, { userId, name: "k", scopes: ["read:meetings"] }, NOV);
  const { token } = await createWebSession(database.conn, userId, NOV);
  const lookup = createApiKeyLookup(database.conn);
  expect(await lookup.find(key)).toBeDefined();

  await app().disable(as(adminId), userId);
  lookup.forget();
  expect(await lookup.find(key)).toBeUndefined();
  expect(await findWebSession(database.conn, token, NOV)).toBeUndefined();
  expect((await app().user(as(adminId), userId)).disabledAt).toBe(NOV);

  await app().enable(as(adminId), userId);
  lookup.forget();
  expect((await lookup.find(key))?.user.id).toBe(userId);
  expect(cacheEmptied).toBe(2);
  // Doing it again changes nothing and records nothing more.
  await app().enable(as(adminId), userId);
  expect(recorded.map((e) => e.action)).toEqual(["user.disabled", "user.enabled"]);
  expect(recorded[0]).toMatchObject({ accountId: userId, actorUserId: adminId, credentialType: "web_session", channel: "webapp", resourceType: "user", resourceId: userId });
});

test("a new user's sign-in link sets a password and signs in once; a refusal names what is wrong", async () => {
  const created = await app().createUser({ cli: { operator: "root" } }, { email: " New@Firm.example ", name: "New", plan: "standard", link: true });
  expect(created.user).toMatchObject({ email: "new@firm.example", plan: "standard" });
  expect(created.link).toMatch(/^https:\/\/verbatim\.firm\.example\/login\/link\/vl_[A-Za-z0-9]{43}$/);
  const token = created.link!.split("/").pop()!;
  const auth = authApp({ conn: database.conn, clock: { now: () => now }, passwords: {} as never, sso: null, onApiKeysChanged() {} });
  expect(await auth.signInLink.peek(token)).toEqual({ email: "new@firm.example" });
  expect((await auth.signInLink.use({ token, password: "short" })).kind).toBe("weak");
  expect((await auth.signInLink.use({ token, password: "a long enough password" })).kind).toBe("signed_in");
  expect((await auth.signInLink.use({ token, password: "a long enough password" })).kind).toBe("invalid");
  expect(await auth.signInLink.peek(token)).toBeUndefined();
  // Past its 24 hours a link is refused.
  const late = (await app().resetSignIn({ cli: { operator: null } }, created.user.id)).split("/").pop()!;
  now = NOV + 24 * 3600_000 + 1;
  expect((await auth.signInLink.use({ token: late, password: "a long enough password" })).kind).toBe("invalid");
  expect(recorded.map((e) => [e.action, e.credentialType, e.channel, e.credentialId])).toEqual([
    ["user.created", "admin_cli", "cli", "root"],
    ["user.sign_in_reset", "admin_cli", "cli", null],
  ]);

  const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);
  expect(await refusal(app().createUser(as(adminId), { email: "new@firm.example", plan: "free", link: false }))).toBeInstanceOf(AdminRefusal);
  expect(await refusal(app().createUser(as(adminId), { email: "not an email", plan: "free", link: false }))).toMatchObject({ reason: "bad_email" });
  expect(await refusal(app().setPlan(as(adminId), userId, "platinum"))).toMatchObject({ reason: "bad_plan" });
  expect(await refusal(app().grantCredits(as(adminId), userId, 0, null))).toMatchObject({ reason: "bad_amount" });
  expect(await refusal(app().setSpendCap(as(adminId), userId, 1.5))).toMatchObject({ reason: "bad_amount" });
  expect(await refusal(app().usage(as(adminId), { from: "2024-01", to: "2026-11" }))).toMatchObject({ reason: "bad_period" });
});

test("usage: per account and month, the ledger's audio, reports, documents and amounts added up", async () => {
  const meter = usageMeter(billing);
  const debit = (who: string, operation: "transcription" | "report" | "document", at: number, extra: { audioSeconds?: number; promptTokens?: number }) =>
    runTx(database.conn, (tx) => meter(tx, { userId: who, plan: "free", meetingId: null, jobId: "job_x", model: "m", operation, channel: "api", ...extra }, at));
  await debit(userId, "transcription", NOV, { audioSeconds: 600 }); // 60
  await debit(userId, "transcription", NOV + 1, { audioSeconds: 300 }); // 30
  await debit(userId, "report", NOV + 2, { promptTokens: 5 }); // 5
  await debit(userId, "document", NOV + 3, { promptTokens: 7 }); // 7
  await debit(adminId, "transcription", Date.parse("2026-10-03T00:00:00Z"), { audioSeconds: 120 }); // 12
  const { from, to, rows } = await app().usage(as(adminId));
  expect([from, to]).toEqual(["2026-09", "2026-11"]);
  expect(rows).toEqual([
    { userId, email: "staff@firm.example", period: "2026-11", audioSeconds: 900, reports: 1, documents: 1, amount: 102 },
    { userId: adminId, email: "boss@firm.example", period: "2026-10", audioSeconds: 120, reports: 0, documents: 0, amount: 12 },
  ]);
  expect((await app().usage(as(adminId), { from: "2026-11", to: "2026-11" })).rows.map((r) => r.period)).toEqual(["2026-11"]);
});
