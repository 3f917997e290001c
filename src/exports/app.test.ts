// The exports' use cases over the meeting side's loader (handed in, as service.ts does).
import { expect, test } from "bun:test";
import type { Actor } from "../auth/actor.ts";
import { ApiError } from "../errors/api-error.ts";
import { exportsApp } from "./app.ts";
import { exportMarkdown, type ExportInput } from "./bundle.ts";

const actor: Actor = { account: { userId: "usr_a", plan: "free" }, channel: "api", credential: { type: "web_session", id: "s" } };
const input: ExportInput = {
  meeting: { id: "m-1", title: "Weekly", recordedAt: "2026-11-09T10:00:00Z", durationSeconds: 60, language: "en", client: null, tags: [], metadata: null },
  participants: [{ name: "Ada", email: null, speakerLabels: ["SPEAKER_00"] }],
  reportMarkdown: "# Report",
  segments: [{ start: 0, speaker: "SPEAKER_00", speaker_name: "Ada", text: "Hello." }],
};
const exportsOf = exportsApp({
  loadOwnedExportInput: async ({ account: { userId } }, meetingId) => {
    if (userId !== "usr_a" || meetingId !== "m-1") throw ApiError.notFound(`Meeting ${meetingId}`);
    return input;
  },
});
const options = { language: "en" as const, maxTokens: 10_000 };

test("bundle: the actor's meeting's export bundle; another meeting is refused by the loader", async () => {
  const bundle = await exportsOf.bundle(actor, "m-1", options);
  expect(bundle).toMatchObject({ object: "export", meeting_id: "m-1" });
  await expect(exportsOf.bundle(actor, "m-2", options)).rejects.toMatchObject({ code: "not_found" });
});

test("markdownFile: the parts joined, named export-<meeting id>.md", async () => {
  const file = await exportsOf.markdownFile(actor, "m-1", options);
  expect(file).toEqual({ body: exportMarkdown(await exportsOf.bundle(actor, "m-1", options)), contentType: "text/markdown; charset=utf-8", fileName: "export-m-1.md" });
  expect(file.body).toContain("Hello.");
});
