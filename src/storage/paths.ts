import { join } from "node:path";

/** Where a meeting's files live: everything of one meeting under one folder, removed as one. */
export function meetingDir(dataDir: string, meetingId: string): string {
  return join(dataDir, "meetings", meetingId);
}

/**
 * The recording as received, under a neutral name: ffmpeg finds the container by probing its
 * content, never from a name the client chose.
 */
export function recordingPath(dataDir: string, meetingId: string): string {
  return join(meetingDir(dataDir, meetingId), "recording");
}

export function decodedAudioPath(dataDir: string, meetingId: string): string {
  return join(meetingDir(dataDir, meetingId), "audio.wav");
}

/** Intermediate results of steps, kept so a restart resumes after the last finished step. */
export function stepOutputPath(dataDir: string, meetingId: string, step: string): string {
  return join(meetingDir(dataDir, meetingId), `${step}.json`);
}

export function uploadsTmpDir(dataDir: string): string {
  return join(dataDir, "tmp");
}

/** The numbered parts of a draft's recording (web app), until finishing joins them into the recording. */
export function draftPartsDir(dataDir: string, meetingId: string): string {
  return join(meetingDir(dataDir, meetingId), "parts");
}
