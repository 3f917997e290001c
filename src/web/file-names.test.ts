// Download names (issue 25, item 5): the meeting's date and title, cleaned, and the header's two forms.
import { describe, expect, test } from "bun:test";
import { asciiFileName, contentDisposition, meetingFileName, safeNamePart } from "./file-names.ts";

const NOV_25 = Date.parse("2026-11-25T09:30:00Z");

describe("meetingFileName", () => {
  test("the date, the title, what the file is, the extension", () => {
    expect(meetingFileName({ title: "Incident review – Ward 4", recordedAt: NOV_25 }, "pdf")).toBe("2026-11-25 Incident review – Ward 4.pdf");
    expect(meetingFileName({ title: "Réunion d'équipe", recordedAt: NOV_25 }, "md", "Compte rendu IA")).toBe("2026-11-25 Réunion d'équipe – Compte rendu IA.md");
  });

  test("path separators, controls, bidi overrides, quotes and Windows' reserved characters never reach the name", () => {
    const name = meetingFileName({ title: '../../etc/passwd "x"\u202Egpj.exe\u0000\r\nQ3: <plan>?|*', recordedAt: NOV_25 }, "t/x\\t");
    expect(name).toBe("2026-11-25 -..-etc-passwd x gpj.exe Q3 plan.txt");
    expect(name).not.toMatch(/[\\/"\u0000-\u001f\u202e:<>?|*]/);
  });

  test("a long title is cut, an empty one is named", () => {
    const name = meetingFileName({ title: "é".repeat(500), recordedAt: NOV_25 }, "srt", "x".repeat(500));
    expect(Array.from(name).length).toBeLessThan(180);
    expect(name.endsWith("….srt")).toBe(true);
    expect(meetingFileName({ title: " ... ", recordedAt: NOV_25 }, "json")).toBe("2026-11-25 Meeting.json");
    expect(safeNamePart("\u200B\u200B")).toBe("");
  });
});

describe("contentDisposition", () => {
  test("an ASCII fallback and the UTF-8 name (RFC 6266, RFC 8187)", () => {
    expect(contentDisposition("attachment", "2026-11-25 Incident review – Ward 4.pdf")).toBe(
      `attachment; filename="2026-11-25 Incident review - Ward 4.pdf"; filename*=UTF-8''2026-11-25%20Incident%20review%20%E2%80%93%20Ward%204.pdf`,
    );
    expect(contentDisposition("inline", "2026-11-25 Réunion (1)'s.md")).toBe(`inline; filename="2026-11-25 Reunion (1)'s.md"; filename*=UTF-8''2026-11-25%20R%C3%A9union%20%281%29%27s.md`);
  });

  test("the fallback is printable ASCII without quotes, backslashes or percent signs", () => {
    expect(asciiFileName("東京 100% \\ ok")).toBe("_ 100_ _ ok");
    expect(contentDisposition("attachment", 'a"b.pdf')).toStartWith(`attachment; filename="a b.pdf"`);
  });
});
