/** The web app's and the composition root's import path until they call meetings/app.ts (then deleted). */
export { allMeetingIds, listMeetings } from "./list-store.ts";
