import { describe, expect, test } from "bun:test";
import { sniffAudioType } from "./audio-type.ts";
import { parseByteRange } from "./byte-range.ts";

describe("parseByteRange", () => {
  test("first-last, open-ended and suffix ranges, clipped to the file", () => {
    expect(parseByteRange("bytes=0-99", 1000)).toEqual({ start: 0, end: 99 });
    expect(parseByteRange("bytes=500-", 1000)).toEqual({ start: 500, end: 999 });
    expect(parseByteRange("bytes=900-5000", 1000)).toEqual({ start: 900, end: 999 });
    expect(parseByteRange("bytes=-100", 1000)).toEqual({ start: 900, end: 999 });
    expect(parseByteRange("bytes=-5000", 1000)).toEqual({ start: 0, end: 999 });
  });
  test("past the end is unsatisfiable; malformed, reversed or several ranges get the whole file", () => {
    expect(parseByteRange("bytes=1000-", 1000)).toBe("unsatisfiable");
    expect(parseByteRange("bytes=-0", 1000)).toBe("unsatisfiable");
    expect(parseByteRange(null, 1000)).toBeNull();
    expect(parseByteRange("bytes=5-2", 1000)).toBeNull();
    expect(parseByteRange("bytes=0-1,5-9", 1000)).toBeNull();
    expect(parseByteRange("items=0-1", 1000)).toBeNull();
    expect(parseByteRange("bytes=-", 1000)).toBeNull();
    expect(parseByteRange("bytes=99999999999999999999-", 1000)).toBeNull();
  });
});

describe("sniffAudioType", () => {
  const bytes = (text: string, at = 0) => {
    const out = new Uint8Array(16);
    out.set(new TextEncoder().encode(text), at);
    return out;
  };
  test("common containers by their magic bytes, anything else as octet-stream", () => {
    const wav = bytes("RIFF");
    wav.set(new TextEncoder().encode("WAVE"), 8);
    expect(sniffAudioType(wav)).toBe("audio/wav");
    expect(sniffAudioType(bytes("fLaC"))).toBe("audio/flac");
    expect(sniffAudioType(bytes("OggS"))).toBe("audio/ogg");
    expect(sniffAudioType(bytes("ftyp", 4))).toBe("audio/mp4");
    expect(sniffAudioType(new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, 0]))).toBe("audio/webm");
    expect(sniffAudioType(bytes("ID3"))).toBe("audio/mpeg");
    expect(sniffAudioType(new Uint8Array([0xff, 0xfb, 0x90]))).toBe("audio/mpeg");
    expect(sniffAudioType(bytes("<html>"))).toBe("application/octet-stream");
  });
});
