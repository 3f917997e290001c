// Measures a recording's level over a stretch of time with ffmpeg's volumedetect: what the audio
// redaction tests compare inside (silent) and outside (unchanged) each redacted span.

/** What volumedetect reports for digital silence (every sample 0): it floors its dB at one 16-bit step. */
export const DIGITAL_SILENCE_DB = -90;

/** The loudest sample (dB; volumedetect says -91 for digital silence) and mean level of `path` between `start` and `end` seconds. */
export function levelOf(path: string, start: number, end: number): { maxDb: number; meanDb: number } {
  const proc = Bun.spawnSync(
    ["ffmpeg", "-hide_banner", "-nostdin", "-i", path, "-map", "0:a:0", "-af", `atrim=start=${start}:end=${end},volumedetect`, "-f", "null", "-"],
    { stdout: "ignore", stderr: "pipe" },
  );
  const text = proc.stderr.toString();
  if (proc.exitCode !== 0) throw new Error(`ffmpeg could not measure ${path}: ${text.slice(-500)}`);
  const read = (name: string) => {
    const match = new RegExp(`${name}:\\s*(-?inf|-?[\\d.]+) dB`).exec(text);
    if (!match) throw new Error(`volumedetect printed no ${name}: ${text.slice(-500)}`);
    return match[1]!.endsWith("inf") ? -Infinity : Number(match[1]);
  };
  return { maxDb: read("max_volume"), meanDb: read("mean_volume") };
}

/** Writes a WAV of a steady tone (`seconds` long, 440 Hz at half scale) with ffmpeg. */
export function writeTone(path: string, seconds: number, rate = 16_000): void {
  const made = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", `sine=frequency=440:sample_rate=${rate}:duration=${seconds}`, "-af", "volume=0.5", "-c:a", "pcm_s16le", path]);
  if (made.exitCode !== 0) throw new Error(`ffmpeg could not write a tone: ${made.stderr.toString()}`);
}
