/**
 * What the upload form takes, as the browser can tell before sending: an audio or video media
 * type, or the file name extension of a container the worker decodes (uploads/media-sniff.ts lists
 * their signatures; the server checks the first bytes in any case). A PDF, a document or an image
 * is refused at once, nothing sent.
 */
export const RECORDING_EXTENSIONS = (
  "wav w64 bwf rf64 avi aif aiff aifc au snd caf flac ogg oga ogv opus spx mp3 mp2 mpga aac adts ac3 eac3 amr " +
  "wv ape tta wma wmv asf mkv mka webm mp4 m4a m4b m4v mov qt 3gp 3g2 flv ts mts m2ts mpg mpeg"
).split(" ");

/** The file input's accept attribute: the media types and the extensions. */
export const RECORDING_ACCEPT = ["audio/*", "video/*", ...RECORDING_EXTENSIONS.map((extension) => `.${extension}`)].join(",");

export function looksLikeRecordingFile(file: { name: string; type: string }): boolean {
  if (/^(audio|video)\//i.test(file.type)) return true;
  const extension = /\.([a-z0-9]{1,5})$/i.exec(file.name)?.[1]?.toLowerCase();
  return extension !== undefined && RECORDING_EXTENSIONS.includes(extension);
}
