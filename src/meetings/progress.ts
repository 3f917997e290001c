/** The web app's pages' import path until they call meetings/app.ts (then deleted). */
export { pendingDocumentCount, processingState, reportBeingRewritten } from "./progress-store.ts";
