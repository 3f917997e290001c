// The reports' use cases over the meeting side's loader (handed in, as service.ts does).
import { expect, test } from "bun:test";
import type { Actor } from "../auth/actor.ts";
import { ApiError } from "../errors/api-error.ts";
import { reportsApp } from "./app.ts";
import type { StoredReport } from "./types.ts";

const actor: Actor = { account: { userId: "usr_a", plan: "free" }, channel: "api", credential: { type: "web_session", id: "s" } };
const report: StoredReport = { meetingId: "m-1", title: "Weekly", language: "en", markdown: "# Weekly\u0001\n\nDone.", structured: null, model: "m", createdAt: 1, updatedAt: 2 };
const reports = reportsApp({
  loadOwnedReport: async ({ account: { userId } }, meetingId) => {
    if (userId !== "usr_a" || meetingId !== "m-1") throw ApiError.notFound(`Meeting ${meetingId}`);
    return report;
  },
});

test("get: the actor's meeting's report as stored; another is refused by the loader", async () => {
  expect(await reports.get(actor, "m-1")).toBe(report);
  await expect(reports.get(actor, "m-2")).rejects.toMatchObject({ code: "not_found" });
});

test("markdownFile: the Markdown without the characters XML forbids, named report-<meeting id>.md", async () => {
  expect(await reports.markdownFile(actor, "m-1")).toEqual({ body: "# Weekly\n\nDone.", contentType: "text/markdown; charset=utf-8", fileName: "report-m-1.md" });
});
