import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { decodeToWav, remuxJoinedWebm } from "../engines/ffmpeg.ts";
import { EngineError, type Engines, type SpeechSegment, type StepContext } from "../engines/types.ts";
import { JOB_ERROR_CATALOGUE } from "../errors/job-codes.ts";
import { DownloadFailed, downloadToFile } from "../net/download.ts";
import { parseEgressAllow } from "../net/egress.ts";
import { headroom } from "../storage/disk-space.ts";
import { decodedAudioPath, stepOutputPath } from "../storage/paths.ts";
import type { StoredTranscript } from "../transcripts/types.ts";
import { attributeSpeakers } from "./attribute.ts";
import type { WorkerConfig } from "./config.ts";
import type { MeetingStepInput, StepInput, StepResult } from "./protocol.ts";

interface TranscribeOutput {
  language: string | null;
  model: string;
  segments: SpeechSegment[];
}

/** Raw tool output for the server log (the worker's stderr is the service's); never sent to clients. */
function logForOperator(input: StepInput, message: string): void {
  console.error(JSON.stringify({ time: new Date().toISOString(), level: "warn", job_id: input.jobId, step: input.step, message }));
}

/**
 * The decoded audio must fit on the data disk above its reserve, or decoding would fill the disk
 * for every account. Retryable: space may be freed (deletions, the retention sweep).
 */
function ensureRoomToDecode(dir: string, bytes: number, config: WorkerConfig): void {
  const room = headroom(dir, config.minFreeDisk);
  if (room >= bytes) return;
  throw new EngineError("insufficient_storage", JOB_ERROR_CATALOGUE.insufficient_storage.message, true, {
    detail: `decoding needs up to ${bytes} bytes; the disk has ${room} above its reserve`,
  });
}

/**
 * A step's output kept for a later step of the same job, its type bound to its path: only this
 * file's code writes it (writeIntermediate) and reads it back (readIntermediate), as that type.
 */
interface Intermediate<T> {
  path: string;
  /** What it is, for the error when it is missing. */
  what: string;
  /** Never set: it ties the handle to T. */
  readonly type?: (value: T) => T;
}

async function writeIntermediate<T>(file: Intermediate<T>, value: T): Promise<void> {
  await Bun.write(file.path, JSON.stringify(value));
}

async function readIntermediate<T>(file: Intermediate<T>): Promise<T> {
  if (!existsSync(file.path)) throw new EngineError("missing_intermediate", `The ${file.what} of an earlier step is missing.`, false);
  // The one place the type is taken on trust: writeIntermediate wrote this file from a T.
  return (await Bun.file(file.path).json()) as T;
}

/** Runs one step of a job: a meeting's processing (outputs in the meeting's folder) or a document's generation. */
export async function runStep(input: StepInput, engines: Engines, config: WorkerConfig, context: StepContext): Promise<StepResult> {
  if (input.kind === "document_generation") {
    return { step: "generate", document: await engines.writer.write(input.document, context) };
  }
  return runMeetingStep(input, engines, config, context);
}

async function runMeetingStep(input: MeetingStepInput, engines: Engines, config: WorkerConfig, context: StepContext): Promise<StepResult> {
  const wavPath = decodedAudioPath(input.dataDir, input.meetingId);
  const decodeInfo: Intermediate<{ durationSeconds: number }> = { path: stepOutputPath(input.dataDir, input.meetingId, "decode"), what: "decoded audio" };
  const transcribeOut: Intermediate<TranscribeOutput> = { path: stepOutputPath(input.dataDir, input.meetingId, "transcribe"), what: "transcription" };
  const transcriptOut: Intermediate<StoredTranscript> = { path: stepOutputPath(input.dataDir, input.meetingId, "transcript"), what: "transcript" };
  mkdirSync(dirname(wavPath), { recursive: true });

  switch (input.step) {
    case "download": {
      try {
        const { bytes } = await downloadToFile(input.audioUrl!, input.recordingPath, {
          policy: parseEgressAllow(config.egressAllow),
          maxBytes: config.maxDownloadBytes,
          timeoutMs: config.downloadTimeoutMs,
          signal: context.signal,
          onProgress: (done, total) => total && context.progress(done / total),
        });
        return { step: "download", bytes };
      } catch (error) {
        if (error instanceof DownloadFailed) {
          // Timeouts, network failures and server errors may pass; refusals and 4xx will not.
          const retryable =
            error.code === "download_timeout" ||
            error.code === "download_failed" ||
            (error.code === "download_http_error" && (error.status ?? 0) >= 500);
          throw new EngineError(error.code, error.message, retryable);
        }
        throw error;
      }
    }
    case "decode": {
      if (input.remuxJoinedWebm) await remuxJoinedWebm(config.ffmpegPath, input.recordingPath, context, (line) => logForOperator(input, line));
      const decoded = await decodeToWav(config.ffmpegPath, input.recordingPath, wavPath, context, {
        maxDurationSeconds: config.maxDurationSeconds,
        log: (line) => logForOperator(input, line),
        ensureSpace: (bytes) => ensureRoomToDecode(dirname(wavPath), bytes, config),
      });
      await writeIntermediate(decodeInfo, { durationSeconds: decoded.durationSeconds });
      return { step: "decode", durationSeconds: decoded.durationSeconds };
    }
    case "transcribe": {
      const result = await engines.transcriber.transcribe({ wavPath, language: input.language }, context);
      await writeIntermediate(transcribeOut, result);
      return { step: "transcribe", language: result.language, model: result.model, segments: result.segments.length };
    }
    case "diarize": {
      const { durationSeconds } = await readIntermediate(decodeInfo);
      const transcription = await readIntermediate(transcribeOut);
      // A solo recording is one speaker; otherwise the participants given are an upper bound, not a target.
      const turns = input.solo
        ? []
        : await engines.diarizer.diarize(
            {
              wavPath,
              durationSeconds,
              minSpeakers: input.minSpeakers ?? config.speakers.min,
              maxSpeakers:
                input.maxSpeakers ?? (input.participantCount > 0 ? input.participantCount : null) ?? config.speakers.max,
              solo: input.solo,
            },
            context,
          );
      const labelled = attributeSpeakers(transcription.segments, turns, durationSeconds);
      const stored: StoredTranscript = { language: transcription.language, model: transcription.model, durationSeconds, ...labelled };
      await writeIntermediate(transcriptOut, stored);
      return { step: "diarize", speakers: labelled.speakers.length, transcriptPath: transcriptOut.path };
    }
    case "summarize": {
      const transcript = await readIntermediate(transcriptOut);
      const report = await engines.reporter.report(
        { title: input.title, language: input.language ?? transcript.language, transcript: transcript.segments },
        context,
      );
      return {
        step: "summarize",
        report: { ...report, structured: { ...report.structured } },
      };
    }
  }
}
