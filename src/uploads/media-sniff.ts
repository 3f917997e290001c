/**
 * Is this the start of an audio or video recording? A check of the first bytes of an upload
 * against the signatures of the containers the worker may decode (engines/media-containers.ts,
 * ALLOWED_DEMUXERS), so that a PDF or a text file renamed .mp3 is refused while it is uploaded
 * (415 unsupported_media) instead of being accepted and failing in the worker. The worker's
 * ffmpeg probe stays the authority: a file that passes here can still fail there; one that fails
 * here would fail there too. The API side does not import engines/ (docs/architecture.md), so
 * the signatures live here; src/uploads/media-sniff.test.ts checks that they cover every allowed
 * demuxer that ffmpeg can recognise by content.
 */

/** How many leading bytes the check needs at most (MPEG-TS needs three packets of 188 bytes). */
export const MEDIA_HEAD_BYTES = 4096;

export const NOT_A_RECORDING_MESSAGE =
  "The file is not an audio or video recording (WAV, MP3, FLAC, Ogg, M4A/MP4/MOV, WebM/Matroska, AAC, AMR, AIFF, WMA, AVI, MPEG...). Nothing was kept.";

const ascii = (head: Uint8Array, at: number, text: string) => {
  if (head.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (head[at + i] !== text.charCodeAt(i)) return false;
  return true;
};
const bytesAt = (head: Uint8Array, at: number, bytes: number[]) => head.length >= at + bytes.length && bytes.every((b, i) => head[at + i] === b);

/** An MPEG audio frame header (MP3, MP2) or an AAC ADTS header at `at`: 11 sync bits and no reserved value. */
function mpegAudioFrame(head: Uint8Array, at: number): boolean {
  if (head.length < at + 4 || head[at] !== 0xff || (head[at + 1]! & 0xe0) !== 0xe0) return false;
  const layer = (head[at + 1]! >> 1) & 0x03;
  if (layer === 0) return (head[at + 1]! & 0xf6) === 0xf0 && ((head[at + 2]! >> 2) & 0x0f) < 13; // ADTS: MPEG-2/4 AAC, a real sampling rate
  const version = (head[at + 1]! >> 3) & 0x03;
  const bitrate = head[at + 2]! >> 4;
  const sampleRate = (head[at + 2]! >> 2) & 0x03;
  return version !== 1 && bitrate !== 0x0f && bitrate !== 0 && sampleRate !== 3;
}

/** MPEG-TS: the 0x47 sync byte every 188 bytes (192 with the 4-byte prefix of M2TS). */
function transportStream(head: Uint8Array): boolean {
  const every = (offset: number, size: number) => head.length >= offset + 2 * size + 1 && [0, 1, 2].every((n) => offset + n * size >= head.length || head[offset + n * size] === 0x47);
  return every(0, 188) || every(4, 192);
}

/** ISO base media (MP4, M4A, MOV, 3GP): a top-level box of a known type first. */
const MP4_FIRST_BOXES = ["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "junk"];

/**
 * The signatures, each named by the ffmpeg demuxer that reads the container. Order matters only
 * for speed; no two overlap in a way that changes the answer.
 */
export const RECORDING_SIGNATURES: { demuxer: string; matches(head: Uint8Array): boolean }[] = [
  { demuxer: "wav", matches: (h) => (ascii(h, 0, "RIFF") || ascii(h, 0, "RF64") || ascii(h, 0, "BW64")) && ascii(h, 8, "WAVE") },
  { demuxer: "w64", matches: (h) => ascii(h, 0, "riff") && bytesAt(h, 4, [0x2e, 0x91, 0xcf, 0x11]) },
  { demuxer: "avi", matches: (h) => ascii(h, 0, "RIFF") && (ascii(h, 8, "AVI ") || ascii(h, 8, "AVIX")) },
  { demuxer: "aiff", matches: (h) => ascii(h, 0, "FORM") && (ascii(h, 8, "AIFF") || ascii(h, 8, "AIFC")) },
  { demuxer: "au", matches: (h) => ascii(h, 0, ".snd") },
  { demuxer: "caf", matches: (h) => ascii(h, 0, "caff") },
  { demuxer: "flac", matches: (h) => ascii(h, 0, "fLaC") },
  { demuxer: "ogg", matches: (h) => ascii(h, 0, "OggS") },
  { demuxer: "mp3", matches: (h) => ascii(h, 0, "ID3") || mpegAudioFrame(h, 0) },
  { demuxer: "aac", matches: (h) => ascii(h, 0, "ADIF") || mpegAudioFrame(h, 0) },
  { demuxer: "ac3", matches: (h) => bytesAt(h, 0, [0x0b, 0x77]) },
  { demuxer: "eac3", matches: (h) => bytesAt(h, 0, [0x0b, 0x77]) },
  { demuxer: "amr", matches: (h) => ascii(h, 0, "#!AMR") },
  { demuxer: "wv", matches: (h) => ascii(h, 0, "wvpk") },
  { demuxer: "ape", matches: (h) => ascii(h, 0, "MAC ") },
  { demuxer: "tta", matches: (h) => ascii(h, 0, "TTA1") },
  { demuxer: "asf", matches: (h) => bytesAt(h, 0, [0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11, 0xa6, 0xd9, 0x00, 0xaa, 0x00, 0x62, 0xce, 0x6c]) },
  { demuxer: "matroska", matches: (h) => bytesAt(h, 0, [0x1a, 0x45, 0xdf, 0xa3]) },
  { demuxer: "mov", matches: (h) => MP4_FIRST_BOXES.some((box) => ascii(h, 4, box)) },
  { demuxer: "flv", matches: (h) => ascii(h, 0, "FLV") && h[3] === 0x01 },
  { demuxer: "mpegts", matches: transportStream },
  { demuxer: "mpeg", matches: (h) => bytesAt(h, 0, [0x00, 0x00, 0x01, 0xba]) },
];

/** True when `head` (the first MEDIA_HEAD_BYTES of a file, or all of a shorter one) starts like a recording. */
export function looksLikeRecording(head: Uint8Array): boolean {
  return RECORDING_SIGNATURES.some((signature) => signature.matches(head));
}
