import type { EntityKind } from "./types.ts";

/** One entity found in a text: where (UTF-16 offsets, end exclusive), what, and its normalized value. */
export interface Match {
  kind: EntityKind;
  start: number;
  end: number;
  /** The normalized value: the same entity written two ways has one key ("+33612345678"). */
  key: string;
}

/** Letters and digits on neither side: a whole-word boundary that knows accented letters. */
export const NOT_WORD_BEFORE = String.raw`(?<![\p{L}\p{N}_])`;
export const NOT_WORD_AFTER = String.raw`(?![\p{L}\p{N}_])`;
