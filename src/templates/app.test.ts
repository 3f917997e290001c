// The templates' use cases over a catalogue loaded as service.ts loads it.
import { expect, test } from "bun:test";
import { templatesApp } from "./app.ts";
import { loadTemplateCatalogue } from "./catalogue.ts";

const file = (id: string, persona: string) => ({ file: `${id}.md`, text: `---\nid: tpl_${id}\nname: ${id} name\npersona: ${persona}\n---\nWrite ${id}.\n` });
const catalogue = loadTemplateCatalogue({ builtin: [file("minutes", "general"), file("brief", "lawyer"), file("memo", "lawyer")], log: () => {} });
const templates = templatesApp(catalogue);

test("personas, templates of one persona or all, one template; an unknown one is not found", async () => {
  expect((await templates.personas()).map((p) => [p.id, p.templates])).toEqual([["general", 1], ["lawyer", 2]]);
  expect((await templates.list("lawyer")).map((t) => t.id).sort()).toEqual(["tpl_brief", "tpl_memo"]);
  expect(await templates.list()).toHaveLength(3);
  expect((await templates.get("tpl_memo")).prompt).toContain("Write memo.");
  await expect(templates.get("nope")).rejects.toMatchObject({ code: "not_found" });
});

test("the catalogue answers the checks a meeting's document_templates and persona are held to", () => {
  expect(catalogue.has("tpl_brief")).toBe(true);
  expect(catalogue.has("nope")).toBe(false);
  expect(catalogue.hasPersona("lawyer")).toBe(true);
  expect(catalogue.hasPersona("sales")).toBe(false);
});
