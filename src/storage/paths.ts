import { join } from "node:path";

/** Where a meeting's files live: everything of one meeting under one folder, removed as one. */
export function meetingDir(dataDir: string, meetingId: string): string {
  return join(dataDir, "meetings", meetingId);
}

/** The recording as received, with an extension taken from the upload's name (for ffmpeg's probing). */
export function originalPath(dataDir: string, meetingId: string, extension: string): string {
  return join(meetingDir(dataDir, meetingId), `original${extension}`);
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

/** A safe extension from a client's file name: letters and digits only, at most 8, else none. */
export function safeExtension(fileName: string | null | undefined): string {
  const match = /\.([A-Za-z0-9]{1,8})$/.exec(fileName ?? "");
  return match ? `.${match[1]!.toLowerCase()}` : "";
}
