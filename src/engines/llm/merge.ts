/**
 * The deterministic merge of the parts' reports, used when even the merge prompt would not fit in
 * the context: every part gets its fair share of each list, in chronological order, within the
 * schema's bounds.
 */
import type { StructuredReport } from "../types.ts";
import { clip } from "./parse.ts";
import type { ReportLimits } from "./schema.ts";

/**
 * Up to `max` items taken round-robin from the lists (one from each in turn, duplicates skipped),
 * returned in their original order: list by list, item by item.
 */
export function pickFairly<T>(lists: readonly T[][], max: number, key: (item: T) => string): T[] {
  const picked: { list: number; index: number; item: T }[] = [];
  const seen = new Set<string>();
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let index = 0; index < longest && picked.length < max; index++) {
    for (let list = 0; list < lists.length && picked.length < max; list++) {
      const item = lists[list]![index];
      if (item === undefined) continue;
      const k = key(item).toLowerCase();
      if (seen.has(k)) continue;
      seen.add(k);
      picked.push({ list, index, item });
    }
  }
  return picked.sort((a, b) => a.list - b.list || a.index - b.index).map((p) => p.item);
}

export function deterministicMerge(parts: readonly StructuredReport[], limits: ReportLimits): StructuredReport {
  const item = (text: string) => clip(text, limits.item);
  const summaries = parts.map((part) => part.summary).filter(Boolean);
  const share = Math.max(20, Math.floor((limits.summary - (summaries.length - 1)) / Math.max(1, summaries.length)));
  const summary = clip(summaries.map((s) => clip(s, share)).join(" "), limits.summary);
  return {
    title: clip(parts.find((part) => part.title)?.title ?? "", limits.title),
    summary,
    key_takeaways: pickFairly(parts.map((p) => p.key_takeaways), limits.keyTakeaways, (s) => s).map(item),
    action_items: pickFairly(parts.map((p) => p.action_items), limits.actionItems, (a) => a.text).map((a) => ({
      text: item(a.text),
      owner: a.owner === null ? null : clip(a.owner, limits.owner),
      due: a.due === null ? null : clip(a.due, limits.due),
    })),
    decisions: pickFairly(parts.map((p) => p.decisions), limits.decisions, (s) => s).map(item),
    minutes: pickFairly(parts.map((p) => p.minutes), limits.minutes, (s) => s).map(item),
  };
}
