/**
 * Decoding options of the whisper engine, set in the configuration. The defaults are greedy
 * decoding without temperature fallback: on a 2-core CPU the fallback (temperatureInc 0.2,
 * bestOf 5) made a 65.7 s recording take 420 s instead of 118 s, and a repetition loop it is
 * meant to break is cut afterwards by the repetition guard (guard.ts) instead.
 */
export interface WhisperDecoding {
  /** 1: greedy decoding. Above 1: beam search with this many beams (slower, sometimes more accurate). Default 1. */
  beamSize: number;
  /** Greedy candidates sampled when the temperature is above 0; only used with beamSize 1. Default 1. */
  bestOf: number;
  /** Sampling temperature of the first attempt; 0 takes the most likely token. Default 0. */
  temperature: number;
  /**
   * Temperature step for the fallback that re-decodes a window whose output looks wrong
   * (low log-probability or a loop). 0 disables the fallback. Default 0.
   */
  temperatureInc: number;
  /**
   * Tokens of earlier text given to the decoder as a prompt within one speech chunk. 0 decodes
   * every 30 s window on its own, which keeps a hallucination from feeding the next window;
   * -1 is whisper.cpp's default (up to 224 tokens). Default 0.
   */
  maxContext: number;
  /**
   * Probability of the no-speech token above which whisper skips a window as silent. Only
   * backends whose whisper.cpp uses it honour it (the @fugood binding does; the whisper.cpp
   * bundled with smart-whisper 0.8.1 ignores it). The Silero VAD gating is the main defence
   * against text on silence. Default 0.6 (whisper.cpp's).
   */
  noSpeechThreshold: number;
  /** Average log-probability under which a window counts as failed (only matters with temperatureInc > 0). Default -1. */
  logprobThreshold: number;
  /** Compression-like entropy under which a window counts as a loop (only matters with temperatureInc > 0). Default 2.4. */
  entropyThreshold: number;
  /** Upper bound on the tokens of one segment; 0: no bound (a 30 s window holds at most 224). Default 0. */
  maxTokensPerSegment: number;
  /** Word timestamps from whisper's token timestamps, where the backend reports them. Default true. */
  wordTimestamps: boolean;
  /** Suppress symbols and sound-effect tokens, as OpenAI's reference decoder does. Default true. */
  suppressNonSpeechTokens: boolean;
  /** Text given to the first window as context (names, jargon). Default null. */
  initialPrompt: string | null;
}

export const DEFAULT_DECODING: Readonly<WhisperDecoding> = Object.freeze({
  beamSize: 1,
  bestOf: 1,
  temperature: 0,
  temperatureInc: 0,
  maxContext: 0,
  noSpeechThreshold: 0.6,
  logprobThreshold: -1,
  entropyThreshold: 2.4,
  maxTokensPerSegment: 0,
  wordTimestamps: true,
  suppressNonSpeechTokens: true,
  initialPrompt: null,
});

/** Fills in the defaults; rejects unknown options (a typo in the configuration) and values whisper.cpp would misbehave on. */
export function resolveDecoding(partial: Partial<WhisperDecoding> = {}): WhisperDecoding {
  const unknown = Object.keys(partial).filter((key) => !(key in DEFAULT_DECODING));
  if (unknown.length > 0) throw new RangeError(`whisper decoding: unknown option(s) ${unknown.join(", ")}; known: ${Object.keys(DEFAULT_DECODING).join(", ")}`);
  const defined = Object.fromEntries(Object.entries(partial).filter(([, value]) => value !== undefined)) as Partial<WhisperDecoding>;
  const decoding: WhisperDecoding = { ...DEFAULT_DECODING, ...defined };
  const integer = (name: keyof WhisperDecoding, min: number, max: number) => {
    const value = decoding[name] as number;
    if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`whisper decoding: ${name} must be an integer in [${min}, ${max}], got ${value}`);
  };
  const real = (name: keyof WhisperDecoding, min: number, max: number) => {
    const value = decoding[name] as number;
    if (!Number.isFinite(value) || value < min || value > max) throw new RangeError(`whisper decoding: ${name} must be a number in [${min}, ${max}], got ${value}`);
  };
  integer("beamSize", 1, 16);
  integer("bestOf", 1, 16);
  real("temperature", 0, 1);
  real("temperatureInc", 0, 1);
  integer("maxContext", -1, 448);
  real("noSpeechThreshold", 0, 1);
  real("logprobThreshold", -100, 0);
  real("entropyThreshold", 0, 100);
  integer("maxTokensPerSegment", 0, 448);
  return decoding;
}

/** Half whisper's text context (n_text_ctx 448): the most tokens of prompt whisper.cpp ever reads. */
export const WHISPER_PROMPT_TOKENS = 224;

/**
 * whisper.cpp's n_max_text_ctx for these options. whisper.cpp reads the prompt through the same
 * window as earlier text, so with 0 (no earlier text, the default) it reads no initial prompt
 * either: a prompt (the configured one, or a meeting's vocabulary) opens the window to its full
 * 224 tokens. `no_context` still starts each speech chunk afresh, with the prompt alone.
 */
export function maxTextContext(decoding: WhisperDecoding): number {
  if (decoding.maxContext < 0) return 16384;
  if (decoding.initialPrompt) return Math.max(decoding.maxContext, WHISPER_PROMPT_TOKENS);
  return decoding.maxContext;
}
