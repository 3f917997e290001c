import type { Match } from "./match.ts";

const MONTHS: Record<string, number> = {
  january: 1, february: 2, march: 3, april: 4, may: 5, june: 6, july: 7, august: 8, september: 9, october: 10, november: 11, december: 12,
  jan: 1, feb: 2, mar: 3, apr: 4, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, oct: 10, nov: 11, dec: 12,
  janvier: 1, février: 2, fevrier: 2, mars: 3, avril: 4, mai: 5, juin: 6, juillet: 7, août: 8, aout: 8, septembre: 9, octobre: 10, novembre: 11, décembre: 12, decembre: 12,
};
const MONTH = Object.keys(MONTHS).sort((a, b) => b.length - a.length).join("|");
const DAY = String.raw`(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th|er)?`;
const YEAR = String.raw`(?:1[89]\d\d|20\d\d)`;

/** The date forms a birth date is said or written in, each a named alternative. */
const DATE = new RegExp(
  [
    String.raw`(?<n1>\d{1,2})[/.\-](?<n2>\d{1,2})[/.\-](?<ny>\d{4}|\d{2})`,
    String.raw`(?<iy>\d{4})-(?<im>\d{2})-(?<id>\d{2})`,
    // 12 March 1985, 12th of March 1985, 1er mars 1985, le 12 mars
    String.raw`(?<dd>${DAY})(?:\s+of)?\s+(?<dm>${MONTH})(?![\p{L}])\.?(?:,?\s+(?<dy>${YEAR}))?`,
    // March 12, 1985; March 12th 1985
    String.raw`(?<mm>${MONTH})(?![\p{L}])\.?\s+(?<md>${DAY})(?:,?\s+(?<my>${YEAR}))?`,
  ].join("|"),
  "iu",
);

/**
 * What says that the date after it is a birth date: "born on", "date of birth", "DOB", "né le",
 * "née le", "date de naissance", "birthday". A few short words may stand between the two ("date of
 * birth is the", "né le"), nothing longer: a date elsewhere in the sentence is not a birth date.
 */
const CONTEXT = new RegExp(
  String.raw`(?<![\p{L}\p{N}])(?:born(?:\s+on)?|date\s+of\s+birth|birth\s*date|birthday|d\.?o\.?b\.?|n[ée]e?\s+le|date\s+de\s+naissance|n[ée]e?\s+en\s+date\s+du)(?![\p{L}\p{N}])(?:\s*[:,\-–]?\s*(?:is|was|on|the|of|est|le|du|:)){0,3}\s*[:,\-–]?\s*`,
  "giu",
);

/** The same phrases said after the date: "12/08/1978, c'est ma date de naissance", "3 July 1975 is his date of birth". */
const TRAILING = new RegExp(
  String.raw`(?<![\p{L}\p{N}])(?:${DATE.source})(?=\s*[,;:(]?\s*(?:(?:is|was|that['’]s|c['’]est|étant)\s+)?(?:(?:my|his|her|their|the|ma|sa|leur|la)\s+)?(?:date\s+of\s+birth|birth\s*date|birthday|d\.?o\.?b\.?|date\s+de\s+naissance)(?![\p{L}\p{N}]))`,
  "giu",
);

/**
 * Dates of birth: a date (day and month at least) right after a birth-date phrase, or right before one. The key is the
 * date as ISO (year-month-day, the year left out when not said), so "12/03/1985" and "12 March
 * 1985" are one date; a numeric date is read day first, month first when it must be (the second number is over 12)
 * or when the meeting is in English and both numbers could be months.
 */
export function findBirthDates(text: string, language: string | null): Match[] {
  const found: Match[] = [];
  for (const context of text.matchAll(CONTEXT)) {
    const start = context.index! + context[0].length;
    const date = DATE.exec(text.slice(start, start + 40));
    if (!date || date.index !== 0) continue;
    const key = isoKey(date.groups!, language);
    if (!key) continue;
    // The date must end at a word's end: "12/03/19850" is no date.
    if (/[\p{L}\p{N}]/u.test(text[start + date[0].length] ?? "")) continue;
    found.push({ kind: "date_of_birth", start, end: start + date[0].length, key });
  }
  for (const date of text.matchAll(TRAILING)) {
    const key = isoKey(date.groups!, language);
    const start = date.index!;
    if (key && !found.some((m) => m.start === start)) found.push({ kind: "date_of_birth", start, end: start + date[0].length, key });
  }
  return found;
}

function isoKey(g: Record<string, string | undefined>, language: string | null): string | null {
  let year: string | undefined;
  let month: number;
  let day: number;
  if (g.n1) {
    const [a, b] = [Number(g.n1), Number(g.n2)];
    // Month first where it must be (the second number is over 12), or in English when both could be months.
    const monthFirst = b > 12 || (a <= 12 && language === "en");
    [day, month] = monthFirst ? [b, a] : [a, b];
    year = g.ny!.length === 2 ? `'${g.ny}` : g.ny;
  } else if (g.iy) {
    [year, month, day] = [g.iy, Number(g.im), Number(g.id)];
  } else if (g.dd) {
    [day, month, year] = [parseInt(g.dd, 10), MONTHS[g.dm!.toLowerCase()]!, g.dy];
  } else {
    [month, day, year] = [MONTHS[g.mm!.toLowerCase()]!, parseInt(g.md!, 10), g.my];
  }
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= 31)) return null;
  return `${year ?? "?"}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}
