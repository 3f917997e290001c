/** The web app's pages' import path until they call meetings/app.ts (then deleted). */
export { listParticipants, patchMeeting } from "./patch-store.ts";
