/** The report's markdown, rendered by our code from the structured report: the same input always gives the same text. */
import type { StructuredReport } from "../types.ts";
import { wordingFor } from "./language.ts";

/** One line of text that cannot start a heading, list or quote, nor close the list it sits in. */
function inline(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function list(items: string[], none: string): string {
  return items.length ? items.map((item) => `- ${inline(item)}`).join("\n") : `_${none}_`;
}

/**
 * "# Title", then the sections Summary, Key takeaways, Action items (with owner and due date),
 * Decisions and Minutes, headed in the meeting's language (English for languages without wording).
 */
export function renderMarkdown(title: string, report: StructuredReport, language: string | null): string {
  const w = wordingFor(language);
  const actions = report.action_items.map((action) => {
    const details = [action.owner ? `${w.owner}: ${inline(action.owner)}` : null, action.due ? `${w.due}: ${inline(action.due)}` : null]
      .filter(Boolean)
      .join(" · ");
    return `- [ ] ${inline(action.text)}${details ? ` (${details})` : ""}`;
  });
  return [
    `# ${inline(title)}`,
    "",
    `## ${w.summary}`,
    "",
    inline(report.summary) || `_${w.none}_`,
    "",
    `## ${w.keyTakeaways}`,
    "",
    list(report.key_takeaways, w.none),
    "",
    `## ${w.actionItems}`,
    "",
    actions.length ? actions.join("\n") : `_${w.none}_`,
    "",
    `## ${w.decisions}`,
    "",
    list(report.decisions, w.none),
    "",
    `## ${w.minutes}`,
    "",
    list(report.minutes, w.none),
    "",
  ].join("\n");
}
