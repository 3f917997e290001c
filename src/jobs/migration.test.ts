import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { applyMigrations } from "../db/migrate.ts";
import { onPostgres } from "../../test/support/postgres.ts";
import { EMBEDDED_MIGRATIONS } from "../db/migrations.generated.ts";

// 0015 moved the kinds' own columns into jobs.payload and renamed source to channel: rows
// written before it keep every value, and the triggers on jobs (reservations released when a job
// ends, jobs refused for deleted accounts) survive it.
// SQLite only: PostgreSQL's migrations start from the schema 0015 produced (migrations/postgres/), so
// no row of the old shape exists there to convert.
test.skipIf(onPostgres)("0015_jobs_payload_channel copies each old row's kind columns into its payload, and source into channel", () => {
  const sqlite = new Database(":memory:");
  // Found by name, not number: a merge may renumber it.
  const at = EMBEDDED_MIGRATIONS.findIndex((m) => m.tag.endsWith("_jobs_payload_channel"));
  expect(at).toBeGreaterThan(0);
  applyMigrations(sqlite, EMBEDDED_MIGRATIONS.slice(0, at));
  sqlite.run("INSERT INTO users (id, email, plan, created_at) VALUES ('usr_1', 'a@example.com', 'pro', 1)");
  const insert = sqlite.prepare(
    `INSERT INTO jobs (id, user_id, kind, status, stage, progress, source, meeting_id, document_id, parent_job_id, transcribe_only,
       report_only, document_templates, document_job_ids, usage, metadata, next_step, created_at)
     VALUES (?, 'usr_1', ?, ?, 'queued', 0, ?, 'mtg_1', ?, ?, ?, ?, ?, ?, ?, ?, 'decode', 1)`,
  );
  insert.run("job_full", "meeting_processing", "completed", "api", null, null, 0, null, '["tpl_a","tpl_b"]', '["job_d1"]', '{"audio_seconds":60}', '{"case":"A-1"}');
  insert.run("job_report", "meeting_processing", "queued", "webapp", null, null, 0, 1, null, null, null, null);
  insert.run("job_transcribe", "meeting_processing", "queued", "api", null, null, 1, null, null, null, null, null);
  insert.run("job_bare", "meeting_processing", "queued", "api", null, null, null, null, null, null, null, null);
  insert.run("job_d1", "document_generation", "completed", "api", "doc_1", "job_full", null, null, null, null, null, null);
  insert.run("job_d2", "document_generation", "queued", "webapp", null, null, null, null, null, null, null, null);
  sqlite.run("INSERT INTO usage_reservations (job_id, user_id, channel, amount_minor, audio_seconds, documents, created_at, updated_at) VALUES ('job_report', 'usr_1', 'webapp', 0, 0, 1, 1, 1)");

  applyMigrations(sqlite);

  const rows = sqlite.query("SELECT id, channel, parent_job_id, payload, usage, metadata FROM jobs ORDER BY id").all() as Record<string, string | null>[];
  const byId = Object.fromEntries(rows.map((r) => [r.id, { ...r, payload: JSON.parse(r.payload!) }]));
  expect(byId.job_full).toMatchObject({
    channel: "api",
    payload: { transcribeOnly: false, documentTemplates: ["tpl_a", "tpl_b"], documentJobIds: ["job_d1"] },
    usage: '{"audio_seconds":60}',
    metadata: '{"case":"A-1"}',
  });
  expect(byId.job_report!.payload).toEqual({ transcribeOnly: false, reportOnly: true });
  expect(byId.job_report!.channel).toBe("webapp");
  expect(byId.job_transcribe!.payload).toEqual({ transcribeOnly: true });
  expect(byId.job_bare!.payload).toEqual({});
  expect(byId.job_d1).toMatchObject({ channel: "api", parent_job_id: "job_full", payload: { documentId: "doc_1" } });
  expect(byId.job_d2!.payload).toEqual({});

  const columns = (sqlite.query("PRAGMA table_info(jobs)").all() as { name: string }[]).map((c) => c.name);
  expect(columns).toContain("channel");
  expect(columns).toContain("payload");
  for (const gone of ["source", "document_id", "transcribe_only", "report_only", "document_templates", "document_job_ids"]) expect(columns).not.toContain(gone);

  // The triggers on jobs are still there: ending a job releases its reservation.
  sqlite.run("UPDATE jobs SET status = 'completed' WHERE id = 'job_report'");
  expect(sqlite.query("SELECT count(*) AS n FROM usage_reservations").get()).toEqual({ n: 0 });
  const triggers = (sqlite.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'jobs'").all() as { name: string }[]).map((t) => t.name);
  expect(triggers.sort()).toEqual(["jobs_refused_for_deleted_accounts", "usage_reservations_release_on_delete", "usage_reservations_release_on_end"]);
});
