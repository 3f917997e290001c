// Issue 25, item 5, in chromium at desk and phone sizes: the document form opens on a template,
// grouped by persona with a description each; the page says a document is being written only while
// it is; a written document previews in the page; every download is named from the meeting's date
// and title (and says it in ASCII too); a document is deleted after a confirmation. The French
// pages (item 10): v2-docs-fr.test.ts.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { ROOT } from "../helpers/server.ts";
import { useDocsWorld, type Json } from "./v2-docs-support.ts";

setDefaultTimeout(90_000);

const TITLE = "Réunion d'équipe – Ward 4";
const world = useDocsWorld();

for (const size of ["desk", "phone"] as const) {
  describe(`documents and downloads (${size})`, () => {
    test("the form opens on the minutes, templates grouped by persona with a description (an empty prompt comes back with its message); a document is 'being written' only while it is; it previews, downloads under the meeting's name, and is deleted after a confirmation", async () => {
      const meeting = await world.uploadMeeting(TITLE);
      const date = meeting.recorded_at.slice(0, 10);
      const { context, page } = await world.newPage(size);
      await page.goto(`${world.server.url}/meetings/${meeting.id}`);

      // The default template, in its persona's group, with its description.
      const minutes = page.getByRole("radio", { name: /^Minutes/ });
      expect(await minutes.isChecked()).toBe(true);
      const general = page.locator("details.persona", { has: page.locator("summary", { hasText: "General" }) });
      expect(await general.getAttribute("open")).not.toBeNull();
      expect(await general.locator("label.choice", { hasText: "Minutes" }).textContent()).toContain("Formal minutes of the meeting");
      const personas = await page.locator("details.persona > summary").allTextContents();
      expect(personas.map((p) => p.replace(/\s*\(\d+\)$/, ""))).toEqual(["General", "Lawyer", "Sales", "Human resources", "Medical"]);
      await page.locator("details.persona > summary", { hasText: "Lawyer" }).click();
      expect(await page.locator("label.choice", { hasText: "Case timeline" }).textContent()).toContain("A chronology of the events");

      // Your own prompt, left empty: back to the form with the message at the field, once.
      await page.getByRole("radio", { name: /^Your own prompt/ }).check();
      await page.getByRole("button", { name: "Write the document" }).click();
      await page.waitForLoadState("load");
      expect(await page.locator("#error-prompt").textContent()).toBe("Write a prompt first, or choose a template.");
      expect(await page.locator("textarea[name=prompt]").getAttribute("aria-invalid")).toBe("true");
      expect(await page.getByRole("radio", { name: /^Your own prompt/ }).isChecked()).toBe(true);
      await page.reload();
      expect(await page.locator("#error-prompt").count()).toBe(0);
      expect(await minutes.isChecked()).toBe(true);

      // Asked for: the page says so, with the document's own stage, never the meeting's "Done".
      await page.getByRole("button", { name: "Write the document" }).click();
      await page.waitForURL(/notice=document/);
      expect(await page.locator("#progress h2").textContent()).toBe("Writing documents");
      expect(await page.getByRole("status").filter({ hasText: "The document is being written" }).count()).toBe(1);
      const stages = new Set<string>();
      while ((await page.locator("li.document").count()) === 0) {
        const stage = await page
          .locator("#progress [data-stage]")
          .textContent({ timeout: 1000 })
          .catch(() => null);
        if (stage) stages.add(stage.trim());
        await page.waitForTimeout(300);
      }
      expect([...stages].some((s) => s.includes("writing the document"))).toBe(true);
      expect([...stages].filter((s) => s === "Done" || s === "Completed")).toEqual([]);
      // Written: the page reloaded; nothing says it is still being written.
      await page.waitForLoadState("load");
      expect(await page.locator("#progress").count()).toBe(0);
      expect(await page.content()).not.toContain("The document is being written");

      // The preview, in the page.
      const doc = page.locator("li.document").first();
      expect(await doc.locator(":scope > h3").textContent()).toBe("Minutes");
      const preview = doc.locator("details.doc-preview article");
      expect(await preview.isVisible()).toBe(true);
      expect(await preview.textContent()).toContain("Tâche");
      await page.screenshot({ path: join(ROOT, "test-artifacts", "web", `v2-docs-${size}.png`), fullPage: true });

      // Downloads: named from the meeting's date and title, in UTF-8 and in ASCII.
      const saved = async (link: ReturnType<Page["locator"]>) => {
        const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
        return download.suggestedFilename();
      };
      expect(await saved(doc.getByRole("link", { name: "Download Minutes as PDF" }))).toBe(`${date} ${TITLE} – Minutes.pdf`);
      expect(await saved(doc.getByRole("link", { name: "Download Minutes as DOCX" }))).toBe(`${date} ${TITLE} – Minutes.docx`);
      expect(await saved(page.locator(`a[href$="/transcript/srt"]`))).toBe(`${date} ${TITLE} – Transcript.srt`);
      expect(await saved(page.locator(`a[href$="/report/md"]`))).toBe(`${date} ${TITLE} – AI report.md`);
      expect(await saved(page.getByRole("link", { name: "Recording (original file)" }))).toBe(`${date} ${TITLE} – Recording.wav`);
      const pdfHref = await doc.getByRole("link", { name: "Download Minutes as PDF" }).getAttribute("href");
      const header = (await context.request.get(`${world.server.url}${pdfHref}`)).headers()["content-disposition"];
      expect(header).toBe(
        `attachment; filename="${date} Reunion d'equipe - Ward 4 - Minutes.pdf"; filename*=UTF-8''${date}%20R%C3%A9union%20d%27%C3%A9quipe%20%E2%80%93%20Ward%204%20%E2%80%93%20Minutes.pdf`,
      );

      // Deleted after a confirmation: gone from the page and from the API.
      const documentId = (await doc.getAttribute("id"))!.replace("document-", "");
      await doc.getByLabel("Delete the document Minutes").click();
      expect(await doc.getByText("Delete “Minutes” for good?").isVisible()).toBe(true);
      await doc.getByRole("button", { name: "Delete the document" }).click();
      await page.waitForURL(/notice=documentDeleted/);
      expect(await page.getByRole("status").filter({ hasText: "The document was deleted." }).count()).toBe(1);
      expect(await page.locator("li.document").count()).toBe(0);
      expect((await world.server.api(`/api/v1/documents/${documentId}`, { key: world.key })).status).toBe(404);
      const listed = (await (await world.server.api(`/api/v1/documents?meeting_id=${meeting.id}`, { key: world.key })).json()) as Json;
      expect(listed.data).toEqual([]);
      await context.close();
    });
  });
}

