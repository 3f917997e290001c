import type { a11yEn } from "./a11y-en.ts";

/** Accessibility strings (issue 25 item 9), in French (spread into messages/fr.ts). */
export const a11yFr: Record<keyof typeof a11yEn, string> = {
  "a11y.skip": "Aller au contenu",
};
