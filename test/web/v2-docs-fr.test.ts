// Issue 25, item 10, in chromium at desk and phone sizes: the French pages show French template
// names and descriptions, ledger operations, statuses and language names, no English word of the
// app's own is left, and no button that saves says "Enregistrer" (which is for recording).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { useDocsWorld } from "./v2-docs-support.ts";

setDefaultTimeout(90_000);

const world = useDocsWorld();

describe("French pages (item 10)", () => {
  test("templates, ledger operations, statuses and languages in French; no save button says Enregistrer", async () => {
    const meeting = await world.uploadMeeting("Point hebdomadaire");
    for (const size of ["desk", "phone"] as const) {
      const { context, page } = await world.newPage(size, "fr-FR");
      /** What the page says in its own words: the meeting's content (title, transcript, report, documents) left out. */
      const chrome = () =>
        page.evaluate(() => {
          const main = document.querySelector("main")!.cloneNode(true) as HTMLElement;
          for (const own of main.querySelectorAll("h1, ol.transcript, article.report, li.document h3, input, textarea")) own.remove();
          return main.textContent!.replace(/\s+/g, " ");
        });
      const english = ["Minutes", "Action plan", "Executive brief", "Follow-up email", "Lawyer", "Sales", "Human resources", "Medical", "General", "Completed", "Processing", "Queued", "tokens", "AI report", "Save", "Download", "Preview", "Delete", "Written"];
      const leftovers = (text: string) => english.filter((word) => new RegExp(`\\b${word}\\b`).test(text));

      await page.goto(`${world.server.url}/meetings/${meeting.id}`);
      expect(await page.getByRole("radio", { name: /^Procès-verbal/ }).isChecked()).toBe(true);
      expect(await page.locator("label.choice", { hasText: "Procès-verbal" }).textContent()).toContain("Le procès-verbal de la réunion");
      expect(await page.locator("details.persona > summary").first().textContent()).toContain("Usage général");
      expect(await page.locator(".meta .badge").textContent()).toBe("Terminée");
      expect(leftovers(await chrome())).toEqual([]);

      await page.goto(`${world.server.url}/settings/usage`);
      const ledger = await page.locator("table").textContent();
      expect(ledger).toContain("Transcription");
      expect(ledger).toContain("Compte rendu IA");
      expect(ledger).toContain("jetons");
      expect(leftovers(await chrome())).toEqual([]);

      await page.goto(`${world.server.url}/meetings`);
      expect(await page.locator("td.status").first().textContent()).toBe("Terminée");
      expect(leftovers(await chrome())).toEqual([]);

      await page.goto(`${world.server.url}/meetings/new`);
      const languages = await page.locator("select[name=language] option").allTextContents();
      expect(languages).toContain("français");
      expect(languages).toContain("anglais");
      expect(languages).not.toContain("en");

      // A button that saves never says Enregistrer (which is for recording).
      for (const path of [`/meetings/${meeting.id}`, "/settings", "/settings/retention", "/settings/redaction", "/settings/vocabulary", "/settings/webhooks", "/settings/developers"]) {
        await page.goto(`${world.server.url}${path}`);
        const buttons = await page.locator("main button").allTextContents();
        expect(buttons.filter((label) => /Enregistrer/.test(label))).toEqual([]);
      }
      await context.close();
    }
  });
});
