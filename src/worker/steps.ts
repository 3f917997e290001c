import { decodeToWav, remuxJoinedWebm, silenceAudio } from "../engines/ffmpeg.ts";
import { EngineError, type Engines, type SpeechSegment, type StepContext } from "../engines/types.ts";
import { JOB_ERROR_CATALOGUE } from "../errors/job-codes.ts";
import { DownloadFailed, downloadToFile } from "../net/download.ts";
import { parseEgressAllow } from "../net/egress.ts";
import { roomAbove } from "../storage/disk-space.ts";
import { localDiskStorage } from "../storage/local-disk.ts";
import { DECODED_AUDIO, RECORDING, stepOutputName } from "../storage/paths.ts";
import type { Storage } from "../storage/storage.ts";
import type { StoredTranscript } from "../transcripts/types.ts";
import { attributeSpeakers } from "./attribute.ts";
import { runLiveStep } from "./live.ts";
import { redactReport, withoutWords } from "./redact.ts";
import { redactTranscript, withWords } from "../redaction/redact.ts";
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
function ensureRoomToDecode(storage: Storage, bytes: number, config: WorkerConfig): void {
  const room = roomAbove(storage.space(), config.minFreeDisk);
  if (room >= bytes) return;
  throw new EngineError("insufficient_storage", JOB_ERROR_CATALOGUE.insufficient_storage.message, true, {
    detail: `decoding needs up to ${bytes} bytes; the disk has ${room} above its reserve`,
  });
}

/**
 * A step's output kept for a later step of the same job, its type bound to its name: only this
 * file's code writes it (writeIntermediate) and reads it back (readIntermediate), as that type.
 * Written through the storage, under a temporary name carrying the step's run id, then renamed:
 * a later step on another node reads a whole file, and two attempts never write the same file.
 */
interface Intermediate<T> {
  name: string;
  /** What it is, for the error when it is missing. */
  what: string;
  /** Never set: it ties the handle to T. */
  readonly type?: (value: T) => T;
}

interface MeetingFiles {
  storage: Storage;
  meetingId: string;
  /** The step's run id: the attempt each write names. */
  runId: string;
}

async function writeIntermediate<T>(files: MeetingFiles, file: Intermediate<T>, value: T): Promise<void> {
  await files.storage.put(files.meetingId, file.name, JSON.stringify(value), files.runId);
}

async function readIntermediate<T>(files: MeetingFiles, file: Intermediate<T>): Promise<T> {
  const value = await readOptionalIntermediate(files, file);
  if (value === null) throw new EngineError("missing_intermediate", `The ${file.what} of an earlier step is missing.`, false);
  return value;
}

/** An intermediate that may be absent (null): one a later step already removed, or one a kind of meeting never has. */
async function readOptionalIntermediate<T>(files: MeetingFiles, file: Intermediate<T>): Promise<T | null> {
  const bytes = await files.storage.get(files.meetingId, file.name);
  if (!bytes) return null;
  // The one place the type is taken on trust: writeIntermediate wrote this file from a T.
  return JSON.parse(new TextDecoder().decode(bytes)) as T;
}

/**
 * Runs `write` on a fresh temporary file of `name` (unique to this attempt) and commits it under
 * `name` when `write` answers true; the temporary file is removed whatever happens.
 */
async function writeStaged(files: MeetingFiles, name: string, write: (path: string) => Promise<boolean>): Promise<void> {
  const staged = await files.storage.stage(files.meetingId, name, files.runId);
  try {
    if (await write(staged.path)) await staged.commit();
  } finally {
    await staged.discard();
  }
}

/** Runs one step of a job: a meeting's processing (outputs in the meeting's folder) or a document's generation. */
export async function runStep(input: StepInput, engines: Engines, config: WorkerConfig, context: StepContext): Promise<StepResult> {
  if (input.kind === "document_generation") {
    return { step: "generate", document: await engines.writer.write(input.document, context) };
  }
  if (input.kind === "live_transcription") return runLiveStep(input, engines, config, context);
  return runMeetingStep(input, engines, config, context);
}

async function runMeetingStep(input: MeetingStepInput, engines: Engines, config: WorkerConfig, context: StepContext): Promise<StepResult> {
  const storage = localDiskStorage(input.storageDir);
  const files: MeetingFiles = { storage, meetingId: input.meetingId, runId: input.runId };
  const recordingPath = storage.localPath(input.meetingId, RECORDING);
  const wavPath = storage.localPath(input.meetingId, DECODED_AUDIO);
  const decodeInfo: Intermediate<{ durationSeconds: number }> = { name: stepOutputName("decode"), what: "decoded audio" };
  const transcribeOut: Intermediate<TranscribeOutput> = { name: stepOutputName("transcribe"), what: "transcription" };
  const transcriptOut: Intermediate<StoredTranscript> = { name: stepOutputName("transcript"), what: "transcript" };

  switch (input.step) {
    case "download": {
      try {
        let bytes = 0;
        await writeStaged(files, RECORDING, async (path) => {
          ({ bytes } = await downloadToFile(input.audioUrl!, path, {
            policy: parseEgressAllow(config.egressAllow),
            maxBytes: config.maxDownloadBytes,
            timeoutMs: config.downloadTimeoutMs,
            signal: context.signal,
            onProgress: (done, total) => total && context.progress(done / total),
          }));
          return true;
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
      const log = (line: string) => logForOperator(input, line);
      if (input.remuxJoinedWebm) await writeStaged(files, RECORDING, (path) => remuxJoinedWebm(config.ffmpegPath, recordingPath, path, context, log));
      let durationSeconds = 0;
      await writeStaged(files, DECODED_AUDIO, async (path) => {
        ({ durationSeconds } = await decodeToWav(config.ffmpegPath, recordingPath, path, context, {
          maxDurationSeconds: config.maxDurationSeconds,
          log,
          ensureSpace: (bytes) => ensureRoomToDecode(storage, bytes, config),
        }));
        return true;
      });
      await writeIntermediate(files, decodeInfo, { durationSeconds });
      return { step: "decode", durationSeconds };
    }
    case "transcribe": {
      const result = await engines.transcriber.transcribe({ wavPath, language: input.language, prompt: input.prompt }, context);
      await writeIntermediate(files, transcribeOut, result);
      return { step: "transcribe", language: result.language, model: result.model, segments: result.segments.length };
    }
    case "diarize": {
      const { durationSeconds } = await readIntermediate(files, decodeInfo);
      const transcription = await readIntermediate(files, transcribeOut);
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
      await writeIntermediate(files, transcriptOut, stored);
      return { step: "diarize", speakers: labelled.speakers.length };
    }
    case "redact": {
      if (!input.redaction) throw new EngineError("missing_intermediate", "The meeting asked for no redaction.", false);
      const stored = await readIntermediate(files, transcriptOut);
      // The transcription's word timings locate each redacted word in the recording. A text
      // meeting has none, nor has a retry after this step removed them (its audio was done then).
      const transcription = await readOptionalIntermediate(files, transcribeOut);
      const redacted = await redactTranscript(transcription ? withWords(stored, transcription.segments) : stored, input.redaction, {
        participantNames: input.participantNames,
        finder: engines.entityFinder ?? null,
        signal: context.signal,
      });
      const recorded = (await storage.open(input.meetingId, RECORDING)) !== null;
      const audio = input.redaction.audio && recorded;
      if (audio) {
        // The silenced copies replace the recording and the decoded audio before the transcript
        // says anything was redacted: a retry finds the same spans in the unredacted transcript.
        const log = (line: string) => logForOperator(input, line);
        await writeStaged(files, RECORDING, async (path) => {
          await silenceAudio(config.ffmpegPath, recordingPath, path, redacted.spans, context, { format: "flac", log });
          return true;
        });
        if ((await storage.open(input.meetingId, DECODED_AUDIO)) !== null) {
          await writeStaged(files, DECODED_AUDIO, async (path) => {
            await silenceAudio(config.ffmpegPath, wavPath, path, redacted.spans, context, { format: "wav", log });
            return true;
          });
        }
      }
      await writeIntermediate(files, transcriptOut, withoutWords(redacted.transcript));
      // The transcription (unredacted words and their timings) is not kept past this step.
      await storage.delete(input.meetingId, transcribeOut.name);
      context.progress(1);
      return { step: "redact", summary: { entities: redacted.summary.entities, audio } };
    }
    case "summarize": {
      const transcript = await readIntermediate(files, transcriptOut);
      const report = await engines.reporter.report(
        { title: input.title, language: input.language ?? transcript.language, transcript: transcript.segments },
        context,
      );
      const written = { ...report, structured: { ...report.structured } };
      return {
        step: "summarize",
        // Written from the redacted transcript; redacted again in case the model wrote a value back.
        report: input.redaction ? await redactReport(written, transcript, input.redaction, input.participantNames, context.signal) : written,
      };
    }
  }
}
