// The web app's side of personal-data redaction (issue 23, item 1), over real HTTP: Settings >
// Redaction stores the account's default (refusing a pattern that is not safe), the upload, text
// and record forms start on it, a meeting from pasted text is redacted before its transcript is
// stored (its report too), and the meeting page says what was redacted.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createUserWithKey, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";
import { needlesInFiles } from "../support/data-dir-scan.ts";
import { onPostgres } from "../support/postgres.ts";
import { needlesInPostgresRows } from "../support/postgres-scan.ts";
import { databaseOf } from "../helpers/query.ts";

setDefaultTimeout(60_000);

const PASSWORD = "correct horse battery";
const EMAIL = "orla.quenby@clinic.example";
const CARD = "4111 1111 1111 1111";
let server: TestServer;
let key: string;

const signedIn = async () => {
  const browser = new CookieClient(server.url);
  await browser.signIn("clerk@firm.example", PASSWORD);
  return browser;
};

beforeAll(async () => {
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000"], env: { TEST_ENGINE_BEHAVIOR: "" } });
  key = await createUserWithKey(server, "clerk@firm.example");
  const set = await server.admin("user", "password", "--email", "clerk@firm.example", "--password", PASSWORD);
  if (set.code !== 0) throw new Error(set.stderr);
});
afterAll(() => server.stop());

/** The option of the redact_pii select that is selected on a page. */
function selectedRedaction(page: string): string {
  const select = /<select name="redact_pii">([\s\S]*?)<\/select>/.exec(page)![1]!;
  return /<option value="([^"]*)" selected/.exec(select)![1]!.replaceAll("&quot;", '"');
}

describe("Settings > Redaction", () => {
  test("saves the account's default, which the upload, text and record forms start on", async () => {
    const browser = await signedIn();
    const upload = await (await browser.get("/meetings/new")).text();
    expect(selectedRedaction(upload)).toBe("false");
    const page = await (await browser.get("/settings/redaction")).text();
    expect(page).toContain('href="/settings/redaction" aria-current="page"');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
    const form = new URLSearchParams({ _csrf: csrf, enabled: "true", audio: "true", case_number_pattern: "DOS-\\d{5}" });
    for (const kind of ["email", "payment_card", "case_number"]) form.append("entities", kind);
    const saved = await browser.post("/settings/redaction", form);
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe("/settings/redaction?notice=redaction");
    expect(await (await server.api("/api/v1/redaction", { key })).json()).toEqual({
      object: "redaction_settings",
      enabled: true,
      entities: ["email", "payment_card", "case_number"],
      audio: true,
      case_number_pattern: "DOS-\\d{5}",
    });
    const expected = JSON.stringify({ entities: ["email", "payment_card", "case_number"], audio: true });
    const forms = await (await browser.get("/meetings/new")).text();
    // Both forms of the page (the recording's and the text's) carry the control.
    expect(forms.match(/<select name="redact_pii">/g)!.length).toBe(2);
    expect(selectedRedaction(forms)).toBe(expected);
    expect(selectedRedaction(await (await browser.get("/record")).text())).toBe(expected);
  });

  test("refuses a pattern that could match forever, saying why, and keeps the settings as they were", async () => {
    const browser = await signedIn();
    const csrf = await browser.csrfToken("/settings/redaction");
    const refused = await browser.post("/settings/redaction", { _csrf: csrf, enabled: "true", case_number_pattern: "(a+)+b" });
    // Issue 25: back to the form (303), the pattern kept and the reason at the field.
    expect(refused.status).toBe(303);
    const page = await (await browser.follow(refused)).text();
    expect(page).toContain("The settings were not saved.");
    expect(page).toContain("This pattern is not a valid regular expression");
    expect(page).toContain('value="(a+)+b"');
    expect(((await (await server.api("/api/v1/redaction", { key })).json()) as any).case_number_pattern).toBe("DOS-\\d{5}");
  });

  test("is in French too", async () => {
    const browser = await signedIn();
    const page = await (await browser.get("/settings/redaction", { "accept-language": "fr" })).text();
    expect(page).toContain("Anonymiser les nouvelles réunions par défaut");
  });
});

describe("a draft (the recorder's and the resumable uploader's)", () => {
  test("keeps the redaction its form chose, and refuses an unknown kind", async () => {
    const browser = await signedIn();
    const csrf = await browser.csrfToken("/record");
    const chosen = JSON.stringify({ entities: ["phone"], audio: true });
    const created = await browser.post("/meetings/drafts", { kind: "recording", redact_pii: chosen }, { "x-csrf-token": csrf });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const meeting = (await (await server.api(`/api/v1/meetings/${id}`, { key })).json()) as any;
    expect(meeting.redaction).toEqual({ applied: false, requested: ["phone"], entities: {}, audio: true });
    const refused = await browser.post("/meetings/drafts", { kind: "recording", redact_pii: JSON.stringify({ entities: ["shoe_size"] }) }, { "x-csrf-token": csrf });
    expect(refused.status).toBe(400);
  });
});

describe("a meeting from pasted text with redaction", () => {
  test("stores only the redacted transcript and report, and its page says what was redacted", async () => {
    const browser = await signedIn();
    const csrf = await browser.csrfToken("/meetings/new");
    const body = new FormData();
    body.append("_csrf", csrf);
    body.append("title", "Intake call");
    body.append("language", "en");
    body.append("redact_pii", JSON.stringify({ entities: ["email", "payment_card", "case_number"], audio: false }));
    body.append("text", `[00:00:03] Alice Martin: Write to ${EMAIL} about file DOS-48213.\nBob: The card was ${CARD}.\nAnd nothing else.`);
    body.append("text_file", new Blob([]), "");
    const created = await fetch(`${server.url}/meetings/text`, { method: "POST", redirect: "manual", headers: { cookie: browser.header(), origin: server.url }, body });
    expect(created.status).toBe(303);
    const id = created.headers.get("location")!.split("/").pop()!;
    const deadline = Date.now() + 30_000;
    let meeting: any;
    do {
      await Bun.sleep(100);
      meeting = await (await server.api(`/api/v1/meetings/${id}`, { key })).json();
    } while (meeting.status !== "completed" && meeting.status !== "failed" && Date.now() < deadline);
    expect(meeting).toMatchObject({ status: "completed", source: "text", has_summary: true });
    expect(meeting.redaction).toEqual({ applied: true, requested: ["email", "payment_card", "case_number"], entities: { email: 1, payment_card: 1, case_number: 1 }, audio: false });
    const transcript = await (await server.api(`/api/v1/meetings/${id}/transcript?format=txt`, { key })).text();
    expect(transcript).toContain("Write to [EMAIL_1] about file [CASE_1].");
    expect(transcript).toContain("The card was [CARD_1].");
    const report = await (await server.api(`/api/v1/meetings/${id}/summary`, { key })).text();
    for (const raw of [EMAIL, CARD, "DOS-48213"]) {
      expect(transcript).not.toContain(raw);
      expect(report).not.toContain(raw);
    }
    // The pasted text went to a step's file first: no file, and no row, holds it once completed.
    expect(needlesInFiles(server.dataDir, [EMAIL, "DOS-48213"])).toEqual([]);
    if (onPostgres) expect(await needlesInPostgresRows(databaseOf(server), [EMAIL, "DOS-48213"])).toEqual([]);
    const page = await (await browser.get(`/meetings/${id}`)).text();
    expect(page).toContain("Personal data redacted: email addresses (1), card numbers (1), case numbers (1)");
  });
});
