/** Issue 25 item 1's strings (error pages, field messages of refused forms), in English (spread into messages/en.ts). */
export const errEn = {
  "err.requestId": "Request id: {id}. Quote it if you report this.",
  "err.backHome": "Back to your meetings",
  "err.signIn": "Sign in",
  "err.field.required": "Fill this in first",
  "err.field.textEmpty": "Paste some text first",
} as const;
