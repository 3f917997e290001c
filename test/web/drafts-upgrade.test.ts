// A data dir from before the draft_parts table (issue 20): drafts stored then, as numbered files in
// their parts folder (the recorder's small 4-second parts among them), keep working after the
// upgrade. The first start records their parts from the folders; they can be finished as before.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client.ts";
import { ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";
import { onPostgres } from "../support/postgres.ts";

setDefaultTimeout(120_000);

const FIXTURE = new Uint8Array(readFileSync(join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav")));
const PASSWORD = "correct horse battery";
const EMAIL = "upgrade@firm.example";
const ARGS = ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=10"];
const dataDir = mkdtempSync(join(tmpdir(), "verbatim-upgrade-"));
let server: TestServer | undefined;

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

// About an upgrade of a SQLite data dir: PostgreSQL support came after draft_parts, so no
// PostgreSQL database predates the table (its migrations start with it).
test.skipIf(onPostgres)("a draft stored before draft_parts existed is recorded from its folder at start, then finished whole", async () => {
  server = await startServer({ dataDir, args: ARGS });
  await server.admin("user", "create", "--email", EMAIL, "--plan", "pro", "--password", PASSWORD);
  const before = new CookieClient(server.url);
  await before.signIn(EMAIL, PASSWORD);
  const csrf = await before.csrfToken("/settings");
  const created = await before.post("/meetings/drafts", { kind: "recording", title: "Recorded before the upgrade" }, { "x-csrf-token": csrf });
  const { id } = (await created.json()) as { id: string };
  await server.stop();
  server = undefined;

  // The data dir as the previous version left it: ten small parts in the folder, no table, the migration not applied.
  const parts = join(dataDir, "meetings", id, "parts");
  mkdirSync(parts, { recursive: true, mode: 0o700 });
  const size = Math.ceil(FIXTURE.length / 10);
  for (let index = 0; index < 10; index++) writeFileSync(join(parts, String(index).padStart(6, "0")), FIXTURE.subarray(index * size, (index + 1) * size), { mode: 0o600 });
  const db = openDatabase(join(dataDir, "verbatim.db"));
  db.$client.exec("DROP TABLE draft_parts");
  db.$client.query("DELETE FROM schema_migrations WHERE tag = ?").run("0012_draft_parts");
  db.$client.close();

  server = await startServer({ dataDir, args: ARGS });
  expect(server.lines.some((line) => line.includes("Recorded 10 part(s) of drafts stored before this version"))).toBe(true);
  // The same browser session, on the restarted server's port.
  const client = new CookieClient(server.url);
  client.cookies = before.cookies;
  const state = (await (await client.get(`/meetings/${id}/parts`)).json()) as { received: number[]; bytes: number };
  expect(state).toEqual({ status: "draft", received: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], bytes: FIXTURE.length } as never);
  expect(await (await client.get(`/meetings/${id}`)).text()).toContain("Parts of the recording received: 10");
  const finished = await client.post(`/meetings/${id}/finish`, {}, { "x-csrf-token": csrf });
  expect(finished.status).toBe(303);
  expect(Buffer.from(await (await client.get(`/meetings/${id}/audio`)).arrayBuffer()).equals(FIXTURE)).toBe(true);
});
