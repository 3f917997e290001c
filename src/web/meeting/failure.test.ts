// Why a meeting failed, in words: every job error code of the catalogue has a sentence, in both languages.
import { expect, test } from "bun:test";
import { JOB_ERROR_CATALOGUE } from "../../errors/job-codes.ts";
import { translator } from "../i18n.ts";
import { failureReason } from "./failure.ts";

test("each job error code maps to a plain sentence (en and fr); an unknown code or none to the general one", () => {
  const en = translator("en");
  const fr = translator("fr");
  for (const code of Object.keys(JOB_ERROR_CATALOGUE)) {
    const key = failureReason(code);
    expect(en(key)).not.toContain(code);
    expect(fr(key)).not.toBe(en(key));
  }
  expect(failureReason("unsupported_media")).toBe("failure.notRecording");
  expect(failureReason("no_audio")).toBe("failure.noAudio");
  expect(failureReason("webapp_quota_reached")).toBe("failure.quota");
  expect(failureReason("something_new")).toBe("failure.general");
  expect(failureReason(null)).toBe("failure.general");
});
