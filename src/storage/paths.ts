import { join } from "node:path";

/*
 * The layout of meetings' files. Names are what a Storage (storage/storage.ts) addresses inside a
 * meeting; the folders are where storage/local-disk.ts puts them under --storage-dir (the data dir
 * unless set), the same layout as before the storage had its own option, so nothing moves.
 */

/** The recording as received, under a neutral name: ffmpeg finds the container by probing its content, never from a name the client chose. */
export const RECORDING = "recording";

export const DECODED_AUDIO = "audio.wav";

/** Intermediate results of steps, kept so a restart resumes after the last finished step. */
export function stepOutputName(step: string): string {
  return `${step}.json`;
}

/** The numbered parts of a draft's recording (web app), until finishing joins them into the recording. */
export const DRAFT_PARTS = "parts";

export function draftPartName(index: number): string {
  return `${DRAFT_PARTS}/${String(index).padStart(6, "0")}`;
}

/**
 * A draft's provisional transcript while it is being recorded (worker/live.ts writes it, the web
 * app reads it); removed when the draft is finished or deleted with the meeting's folder.
 */
export const LIVE_TRANSCRIPT = "live.json";

/**
 * The part a live recording is still gathering (under the minimum part size, so not yet sent as a
 * part), sent by the recorder page for the live transcript alone; never joined into the recording.
 */
export const LIVE_TAIL = "live-tail";

export function liveTailName(index: number): string {
  return `${LIVE_TAIL}/${String(index).padStart(6, "0")}`;
}

/** Rendered PDF and DOCX files of the meeting's documents (documents/render-cache.ts). */
export const DOCUMENT_RENDERS = "documents";

/** Where a meeting's files live on a local disk: everything of one meeting under one folder, removed as one. */
export function meetingDir(storageDir: string, meetingId: string): string {
  return join(storageDir, "meetings", meetingId);
}

export function recordingPath(storageDir: string, meetingId: string): string {
  return join(meetingDir(storageDir, meetingId), RECORDING);
}

/** Uploads being received, on the storage's disk so that moving one into its meeting is a rename. */
export function uploadsTmpDir(storageDir: string): string {
  return join(storageDir, "tmp");
}
