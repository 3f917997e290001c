// Random text for property tests of the renderers: every kind of character a meeting's words,
// a model's answer or a client's field could carry, mixed with Markdown's own syntax. Seeded, so a
// failing case can be run again from the seed the test prints.

/** A small seeded generator (mulberry32): the same seed, the same strings. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const between = (random: () => number, low: number, high: number) => low + Math.floor(random() * (high - low + 1));

/** Each a way to draw one piece of text: the characters XML forbids are drawn as often as the rest. */
const PIECES: ((random: () => number) => string)[] = [
  (r) => String.fromCharCode(between(r, 0x00, 0x1f)), // C0 controls, NUL, tab, LF, CR among them
  (r) => String.fromCharCode([0xfffe, 0xffff, 0xfffd, 0x7f, 0x85, 0x9f][between(r, 0, 5)]!),
  (r) => String.fromCharCode(between(r, 0xd800, 0xdfff)), // a lone surrogate, high or low
  (r) => String.fromCodePoint(between(r, 0x10000, 0x10ffff)), // an astral character, as a surrogate pair
  (r) => String.fromCodePoint([0x1f600, 0x20bb7, 0x1d11e][between(r, 0, 2)]!), // emoji, rare CJK, music
  (r) => String.fromCharCode(between(r, 0x20, 0x7e)),
  (r) => String.fromCharCode(between(r, 0xa0, 0xd7ff)), // the rest of the BMP below the surrogates
  (r) => String.fromCharCode(between(r, 0xe000, 0xfffd)),
  (r) => ["# ", "**", "_", "`", "```\n", "\n\n", "\n- ", "\n1. ", "| a | b |\n|---|---|\n", "> ", "[x](https://example.org/", ")", "<b>", "&amp;", "&#1;", "&#xFFFE;", "&#xD800;", "&#0;", "\\"][between(r, 0, 18)]!,
  (r) => "réunion Łódź 会议 ".slice(0, between(r, 1, 17)),
];

/** A string of up to `maxPieces` random pieces. */
export function randomUnicode(random: () => number, maxPieces = 40): string {
  let text = "";
  for (let i = between(random, 0, maxPieces); i > 0; i--) text += PIECES[between(random, 0, PIECES.length - 1)]!(random);
  return text;
}
