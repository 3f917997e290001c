// `verbatim admin audit export` (issue 23 item 4): the trail as JSON lines for a SIEM, oldest first,
// from --since (inclusive) to --until (exclusive), one account's by id or email; the export is itself
// recorded as the administrator's (admin_cli). Both dialects: the command opens the same database.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { appendAuditEntries, exportAuditEntries } from "../../src/audit/store.ts";
import { actorEntry, systemEntry } from "../../src/audit/types.ts";
import { getUserByEmail } from "../../src/auth/user-store.ts";
import { createUserWithKey, startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(60_000);
let server: TestServer;
let anaId: string;
let benId: string;
const JAN = Date.parse("2026-01-10T09:00:00Z");
const FEB = Date.parse("2026-02-10T09:00:00Z");
const MAR = Date.parse("2026-03-10T09:00:00Z");

beforeAll(async () => {
  server = await startServer();
  await createUserWithKey(server, "ana@firm.example");
  await createUserWithKey(server, "ben@firm.example");
  anaId = (await getUserByEmail(server.conn(), "ana@firm.example"))!.id;
  benId = (await getUserByEmail(server.conn(), "ben@firm.example"))!.id;
  const ana = { account: { userId: anaId }, channel: "api" as const, credential: { type: "api_key" as const, id: "key_x" }, clientAddress: () => "203.0.113.5" };
  await appendAuditEntries(
    server.conn(),
    [
      { ...actorEntry(ana, "transcript.read", { type: "meeting", id: "mtg-jan" }, { format: "srt" }), at: JAN },
      { ...actorEntry(ana, "report.read", { type: "meeting", id: "mtg-feb" }), at: FEB },
      { ...systemEntry(benId, "retention.meeting_deleted", { type: "meeting", id: "mtg-ben" }), at: FEB + 1 },
      { ...actorEntry(ana, "meeting.deleted", { type: "meeting", id: "mtg-mar" }), at: MAR },
    ],
    JAN,
  );
});
afterAll(() => server.stop());

const lines = (stdout: string) =>
  stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);

test("every account's entries from --since, oldest first, one JSON object a line", async () => {
  const run = await server.admin("audit", "export", "--since", "2026-02-01");
  expect(run.code).toBe(0);
  const exported = lines(run.stdout).filter((line) => line.at_ms < Date.parse("2026-04-01"));
  expect(exported.map((line) => line.resource_id)).toEqual(["mtg-feb", "mtg-ben", "mtg-mar"]);
  expect(exported[0]).toEqual({
    id: expect.any(Number),
    at: "2026-02-10T09:00:00.000Z",
    at_ms: FEB,
    account_id: anaId,
    actor_user_id: anaId,
    credential_type: "api_key",
    credential_id: "key_x",
    channel: "api",
    action: "report.read",
    resource_type: "meeting",
    resource_id: "mtg-feb",
    client_address: "203.0.113.5",
    detail: null,
  });
  expect(exported[1]).toMatchObject({ account_id: benId, actor_user_id: null, credential_type: "system", channel: "system" });
});

test("--until and --account (an email or a user id) narrow it", async () => {
  const byEmail = await server.admin("audit", "export", "--since", "2026-01-01", "--until", "2026-03-01T00:00:00Z", "--account", "ana@firm.example");
  expect(byEmail.code).toBe(0);
  expect(lines(byEmail.stdout).map((line) => line.resource_id)).toEqual(["mtg-jan", "mtg-feb"]);
  const byId = await server.admin("audit", "export", "--since", "2026-01-01", "--until", "2026-03-01", "--account", benId);
  expect(lines(byId.stdout).map((line) => line.resource_id)).toEqual(["mtg-ben"]);
});

test("the export is recorded as the administrator's, at the shell", async () => {
  const run = await server.admin("audit", "export", "--since", "2026-01-01", "--until", "2026-01-31", "--account", "ana@firm.example");
  expect(lines(run.stdout)).toHaveLength(1);
  const recorded = [];
  for await (const row of exportAuditEntries(server.conn(), { accountId: anaId, actions: ["audit.exported"] })) recorded.push(row);
  const last = recorded[recorded.length - 1]!;
  expect(last).toMatchObject({ credentialType: "admin_cli", channel: "cli", actorUserId: null, detail: { since: "2026-01-01T00:00:00.000Z", until: "2026-01-31T00:00:00.000Z", entries: 1, all_accounts: false } });
});

test("a bad date, an --until before --since or an unknown email is a usage error, with nothing on stdout", async () => {
  for (const args of [
    ["--since", "last tuesday"],
    ["--since", "2026-02-01", "--until", "2026-01-01"],
    ["--since", "2026-02-01", "--account", "nobody@firm.example"],
    [],
  ]) {
    const run = await server.admin("audit", "export", ...args);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr.length).toBeGreaterThan(0);
  }
});
