// Files for upload tests. An upload's first bytes must look like a recording (src/uploads/media-sniff.ts,
// else 415 unsupported_media at once), so tests that need a file accepted, then failed by the worker,
// or that only need bytes to flow, send these.

/** A RIFF/WAVE header then `bytes` of noise: accepted at upload, refused by ffmpeg's probe (no fmt chunk): the job fails unsupported_media. */
export function undecodableRecording(bytes = 4096): Uint8Array<ArrayBuffer> {
  return withWavHeader(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** `body` behind a 12-byte RIFF/WAVE header: passes the upload's check of its first bytes, whatever follows. */
export function withWavHeader(body: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(12 + body.length);
  out.set(new TextEncoder().encode("RIFF"), 0);
  new DataView(out.buffer).setUint32(4, Math.min(0xffffffff, body.length + 4), true);
  out.set(new TextEncoder().encode("WAVE"), 8);
  out.set(body, 12);
  return out;
}

/** `size` bytes that start like a WAV file and are zeros after: for tests about sizes and streams, not audio. */
export function wavSizedBytes(size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  out.set(withWavHeader(new Uint8Array(0)).subarray(0, Math.min(12, size)));
  return out;
}

/** The first bytes of a PDF: what a user might upload by mistake. */
export const PDF_BYTES = new TextEncoder().encode("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" + "0".repeat(8000) + "\n%%EOF\n");
