/**
 * The demuxers ffmpeg may use on a client's recording: real audio and video containers whose
 * data is all inside the file. Everything else is refused, above all the formats that make
 * ffmpeg open further files or URLs (hls, concat/ffconcat, dash, image2 sequences, lavfi,
 * tee, subfile, webm_dash_manifest...): a playlist naming another account's recording would
 * otherwise be decoded as this account's meeting.
 *
 * Names are ffmpeg's demuxer names (`ffmpeg -demuxers`); a demuxer whose name is a list
 * ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm") is allowed when any of its names is here.
 */
export const ALLOWED_DEMUXERS = [
  "wav",
  "w64",
  "aiff",
  "au",
  "caf",
  "flac",
  "mp3",
  "ogg",
  "aac",
  "ac3",
  "eac3",
  "amr",
  "amrnb",
  "amrwb",
  "wv",
  "ape",
  "tta",
  "asf",
  "matroska",
  "mov",
  "avi",
  "flv",
  "mpegts",
  "mpeg",
] as const;

/** ffmpeg's -format_whitelist value. */
export const DEMUXER_WHITELIST = ALLOWED_DEMUXERS.join(",");

/**
 * Input options every ffmpeg run on a recording gets: the demuxer allowlist, and only the
 * file protocol (no http, no pipe, no data: URIs), so nothing but the stored file is read.
 */
export function restrictedInputArgs(): string[] {
  return ["-protocol_whitelist", "file", "-format_whitelist", DEMUXER_WHITELIST];
}

/** True when ffmpeg's demuxer name (possibly a comma list) is an allowed container. */
export function isAllowedDemuxer(name: string): boolean {
  return name.split(",").some((part) => (ALLOWED_DEMUXERS as readonly string[]).includes(part.trim()));
}
