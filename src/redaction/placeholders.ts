import type { EntityKind, PlaceholderMap } from "./types.ts";

/** The placeholder's label per kind: [PERSON_1], [CARD_2], ... */
export const PLACEHOLDER_LABEL: Record<EntityKind, string> = {
  person: "PERSON",
  email: "EMAIL",
  phone: "PHONE",
  payment_card: "CARD",
  iban: "IBAN",
  national_id: "ID",
  date_of_birth: "DOB",
  address: "ADDRESS",
  case_number: "CASE",
};

/** A meeting's empty map: pass the meeting's language so phone numbers get its default regions. */
export function emptyPlaceholders(language: string | null = null): PlaceholderMap {
  return { language, placeholders: {}, counts: {}, literals: [] };
}

/**
 * The placeholder of an entity, made on first sight: numbered per kind in the order entities are
 * first met, so the same normalized value is always the same placeholder within the meeting.
 */
export function placeholderFor(map: PlaceholderMap, kind: EntityKind, key: string): string {
  const id = `${kind}:${key}`;
  const known = map.placeholders[id];
  if (known) return known;
  const count = (map.counts[kind] ?? 0) + 1;
  const made = `[${PLACEHOLDER_LABEL[kind]}_${count}]`;
  map.counts[kind] = count;
  map.placeholders[id] = made;
  return made;
}
