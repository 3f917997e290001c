/** The import path of the web app, the composition root and the processing kind until they call the store or meetings/app.ts (then deleted). */
export { correctedSegments, correctSegment, forgetCorrections, listCorrections } from "./corrections-store.ts";
