/** The one ownership check is meetings/store.ts's `ownedMeetingRow`; feedback/ asks through this name. */
export { ownsMeeting } from "./store.ts";
