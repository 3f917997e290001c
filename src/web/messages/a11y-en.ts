/** Accessibility strings (issue 25 item 9): the skip link, in English (spread into messages/en.ts). */
export const a11yEn = {
  "a11y.skip": "Skip to content",
};
