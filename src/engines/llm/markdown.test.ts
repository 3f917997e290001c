import { describe, expect, test } from "bun:test";
import type { StructuredReport } from "../types.ts";
import { normalizeLanguage, wordingFor } from "./language.ts";
import { renderMarkdown } from "./markdown.ts";

const report: StructuredReport = {
  title: "Budget review",
  summary: "The team reviewed the budget.",
  key_takeaways: ["Spending is on track."],
  action_items: [
    { text: "Send the revised forecast.", owner: "Anna", due: "Friday" },
    { text: "Book the room.", owner: null, due: "next week" },
    { text: "Call the supplier.", owner: "Tom", due: null },
  ],
  decisions: ["Freeze hiring."],
  minutes: ["Anna presented the numbers.", "Tom asked about travel."],
};

describe("renderMarkdown", () => {
  test("English: title, every section heading, every item, owners and due dates", () => {
    const md = renderMarkdown("Budget review", report, "en");
    expect(md).toBe(
      [
        "# Budget review",
        "",
        "## Summary",
        "",
        "The team reviewed the budget.",
        "",
        "## Key takeaways",
        "",
        "- Spending is on track.",
        "",
        "## Action items",
        "",
        "- [ ] Send the revised forecast. (Owner: Anna · Due: Friday)",
        "- [ ] Book the room. (Due: next week)",
        "- [ ] Call the supplier. (Owner: Tom)",
        "",
        "## Decisions",
        "",
        "- Freeze hiring.",
        "",
        "## Minutes",
        "",
        "- Anna presented the numbers.",
        "- Tom asked about travel.",
        "",
      ].join("\n"),
    );
    expect(renderMarkdown("Budget review", report, "en")).toBe(md); // deterministic
  });

  test("French headings and words for a French meeting", () => {
    const md = renderMarkdown("Revue du budget", report, "fr-FR");
    for (const heading of ["## Résumé", "## Points clés", "## Actions à mener", "## Décisions", "## Compte rendu"]) expect(md).toContain(`${heading}\n`);
    expect(md).toContain("- [ ] Send the revised forecast. (Responsable: Anna · Échéance: Friday)");
    expect(md).not.toContain("## Summary");
  });

  test("languages without wording fall back to English; empty sections say so", () => {
    const empty: StructuredReport = { title: "T", summary: "", key_takeaways: [], action_items: [], decisions: [], minutes: [] };
    const md = renderMarkdown("T", empty, "ja");
    expect(md).toContain("## Summary\n\n_None._");
    expect(md).toContain("## Action items\n\n_None._");
    expect(renderMarkdown("T", empty, null)).toBe(md);
    expect(renderMarkdown("T", empty, "de")).toContain("## Zusammenfassung");
  });

  test("text with newlines stays on its line", () => {
    const md = renderMarkdown("A\ntitle", { ...report, minutes: ["line one\n## not a heading"] }, "en");
    expect(md).toContain("# A title\n");
    expect(md).toContain("- line one ## not a heading\n");
  });
});

describe("language", () => {
  test("normalises codes and names", () => {
    expect(normalizeLanguage("fr-FR")).toBe("fr");
    expect(normalizeLanguage("FR")).toBe("fr");
    expect(normalizeLanguage("French")).toBe("fr");
    expect(normalizeLanguage("pt_BR")).toBe("pt");
    expect(normalizeLanguage("")).toBeNull();
    expect(normalizeLanguage(null)).toBeNull();
    expect(normalizeLanguage("auto detect")).toBeNull();
    expect(wordingFor("fr").fallbackTitle("2024-06-01")).toBe("Réunion du 2024-06-01");
    expect(wordingFor("xx").fallbackTitle("2024-06-01")).toBe("Meeting of 2024-06-01");
  });
});
