import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILTIN_TEMPLATES } from "./builtin.generated.ts";
import { loadTemplateCatalogue } from "./catalogue.ts";

const dir = mkdtempSync(join(tmpdir(), "verbatim-templates-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the shipped catalogue", () => {
  const log: string[] = [];
  const catalogue = loadTemplateCatalogue({ builtin: BUILTIN_TEMPLATES, log: (l) => log.push(l) });

  test("every file of src/templates/catalogue is embedded (scripts/embed-templates.ts was run)", () => {
    const files = readdirSync(join(import.meta.dir, "catalogue")).filter((f) => f.endsWith(".md")).sort();
    expect(BUILTIN_TEMPLATES.map((t) => t.file)).toEqual(files);
  });

  test("loads without a warning, with the personas and templates the product promises", () => {
    expect(log).toEqual([]);
    const names = (persona: string) => catalogue.templates.filter((t) => t.persona === persona).map((t) => t.name).sort();
    expect(names("general")).toEqual(["Action plan", "Executive brief", "Follow-up email", "Minutes"]);
    expect(names("lawyer")).toEqual(["Attendance note", "Case timeline", "Client meeting memo", "Engagement letter draft"]);
    expect(names("sales")).toEqual(["CRM notes", "Call recap", "Proposal outline"]);
    expect(names("hr")).toEqual(["Interview scorecard", "One-on-one notes"]);
    expect(names("medical")).toEqual(["Consultation note (SOAP)"]);
    expect(catalogue.personas.map((p) => [p.id, p.templates])).toEqual([["general", 4], ["lawyer", 4], ["sales", 3], ["hr", 2], ["medical", 1]]);
    for (const t of catalogue.templates) {
      expect(t.id).toMatch(/^tpl_[a-z0-9_]+$/);
      expect(t.prompt.length).toBeGreaterThan(100);
      expect(t.description).not.toBeNull();
      // The web app in French shows them in French (issue 25, item 10).
      expect(t.translations?.fr?.name).toBeTruthy();
      expect(t.translations?.fr?.description).toBeTruthy();
    }
  });
});

describe("a firm's own templates", () => {
  const write = (name: string, text: string) => writeFileSync(join(dir, name), text);
  write("board-pack.md", "---\nid: tpl_board_pack\nname: Board pack\nname_fr: Dossier du conseil\npersona: board\nicon: briefcase\n---\nWrite the board pack section for this meeting.\n");
  write("minutes.md", "---\nid: tpl_minutes\nname: Minutes (house style)\npersona: general\n---\nOur own minutes format.\n");
  write("no-front-matter.md", "Just a prompt without fields.\n");
  write("bad-yaml.md", "---\nid: [unclosed\n---\nPrompt.\n");
  write("bad-id.md", "---\nid: minutes2\nname: X\n---\nPrompt.\n");
  write("no-name.md", "---\nid: tpl_noname\n---\nPrompt.\n");
  write("empty-prompt.md", "---\nid: tpl_empty\nname: Empty\n---\n\n");
  write("huge.md", `---\nid: tpl_huge\nname: Huge\n---\n${"x".repeat(70_000)}\n`);
  write("notes.txt", "not a template file");
  const log: string[] = [];
  const catalogue = loadTemplateCatalogue({ builtin: BUILTIN_TEMPLATES, customDir: dir, log: (l) => log.push(l) });

  test("are added; one with a shipped id replaces it; a new persona appears", () => {
    expect(catalogue.get("tpl_board_pack")).toMatchObject({ name: "Board pack", persona: "board", icon: "briefcase", translations: { fr: { name: "Dossier du conseil", description: null } } });
    expect(catalogue.get("tpl_minutes")).toMatchObject({ name: "Minutes (house style)", source: "minutes.md" });
    expect(catalogue.personas.find((p) => p.id === "board")).toEqual({ id: "board", name: "board", description: null, templates: 1 });
    expect(log).toContain("template minutes.md replaces the shipped template tpl_minutes");
  });

  test("a bad file is reported and skipped, never fatal", () => {
    for (const file of ["no-front-matter.md", "bad-yaml.md", "bad-id.md", "no-name.md", "empty-prompt.md", "huge.md"]) {
      expect(log.some((l) => l.startsWith(`warning: template ${file} skipped: `))).toBe(true);
    }
    expect(catalogue.get("tpl_noname")).toBeUndefined();
    expect(catalogue.get("tpl_empty")).toBeUndefined();
    expect(catalogue.templates.length).toBe(15);
  });

  test("an unreadable folder is a warning, and the shipped templates remain", () => {
    const warnings: string[] = [];
    const only = loadTemplateCatalogue({ builtin: BUILTIN_TEMPLATES, customDir: join(dir, "missing"), log: (l) => warnings.push(l) });
    expect(only.templates.length).toBe(14);
    expect(warnings).toEqual(["warning: the templates folder cannot be read (ENOENT); only the shipped templates are available"]);
  });
});
